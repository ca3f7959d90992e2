// Each layout's own opt-in real-server test (src/controller.real.test.ts), run as a user runs `npm run test:real`:
// the controller as its ServiceAccount with exactly deploy/'s RBAC on a real kube-apiserver.
import { afterAll, describe, expect, it } from '@jest/globals';
import { LAYOUTS } from '../Layout.js';
import { prepareGeneratedProject, runInProject, type PreparedProject } from './prepareGeneratedProject.js';

const made: PreparedProject[] = [];
afterAll(() => made.forEach((p) => p.remove()));

describe.each(LAYOUTS)('a generated %s project', (layout) => {
  it('passes its real-server test as its ServiceAccount', () => {
    const project = prepareGeneratedProject(layout);
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
    expect(jest.output).toMatch(/Tests:\s+1 passed, 1 total/);
  }, 180_000);
});
