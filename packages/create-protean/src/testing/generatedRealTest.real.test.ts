// Each layout's own opt-in real-server test (src/controller.real.test.ts), run as a user runs `npm run test:real`:
// the controller as its ServiceAccount with exactly deploy/'s RBAC on a real kube-apiserver; with --webhooks, the
// parent's webhooks in force too (kube-apiserver calls them, the certificate and configurations made under that RBAC).
import { afterAll, describe, expect, it } from '@jest/globals';
import { LAYOUTS } from '../Layout.js';
import { prepareGeneratedProject, runInProject, type PreparedProject } from './prepareGeneratedProject.js';

const made: PreparedProject[] = [];
afterAll(() => made.forEach((p) => p.remove()));

const CASES = [...LAYOUTS.map((layout) => ({ layout, webhooks: false })), { layout: 'leader-election' as const, webhooks: true }];

describe.each(CASES)('a generated $layout project (webhooks: $webhooks)', ({ layout, webhooks }) => {
  it('passes its real-server test as its ServiceAccount', () => {
    const project = prepareGeneratedProject(layout, { webhooks });
    made.push(project);
    const jest = runInProject(
      project.dir,
      [
        '--experimental-vm-modules',
        '--no-warnings=ExperimentalWarning',
        'node_modules/jest/bin/jest.js',
        '--runInBand',
        'src/controller.real.test.ts',
      ],
      { ...process.env, PROTEAN_ENVTEST: '1' },
    );
    expect({ status: jest.status, output: jest.status === 0 ? '' : jest.output }).toEqual({ status: 0, output: '' });
    // With --webhooks, a second test: kube-apiserver defaulting and refusing through the webhooks.
    const tests = webhooks ? 2 : 1;
    expect(jest.output).toMatch(new RegExp(`Tests:\\s+${tests} passed, ${tests} total`));
  }, 180_000);
});
