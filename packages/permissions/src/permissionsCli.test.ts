import { describe, expect, it } from '@jest/globals';
import { parseAllDocuments } from 'yaml';
import { PERMISSIONS_USAGE_EXIT_CODE, runPermissionsCli, type PermissionsCliIo } from './permissionsCli.js';
import { controllerAccesses } from './controllerAccesses.testkit.js';
import { toRbacYaml } from './toRbacYaml.js';
import { permissionsUsed } from './permissionsUsed.js';

function io(answer: { status: number; body: string } | Error, files: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const asked: string[] = [];
  const value: PermissionsCliIo = {
    stdout: (t) => out.push(t),
    stderr: (t) => err.push(t),
    fetchText: async (url) => {
      asked.push(url);
      if (answer instanceof Error) throw answer;
      return answer;
    },
    readFile: async (path) => {
      const text = files[path];
      if (text === undefined) throw new Error(`ENOENT: ${path}`);
      return text;
    },
  };
  return { value, out, err, asked };
}

const served = { status: 200, body: JSON.stringify({ accesses: controllerAccesses().entries() }) };

describe('protean-permissions', () => {
  it("prints the RBAC YAML of a running controller's /statusz/permissions", async () => {
    const t = io(served);
    expect(await runPermissionsCli(['http://127.0.0.1:9464/', '--name', 'ctl', '--namespace=ctl'], t.value)).toBe(0);
    expect(t.asked).toEqual(['http://127.0.0.1:9464/statusz/permissions']);
    expect(t.out.join('')).toBe(toRbacYaml(permissionsUsed(controllerAccesses()), { name: 'ctl', namespace: 'ctl' }));
    expect(parseAllDocuments(t.out.join('')).map((d) => (d.toJS() as { kind: string }).kind)).toEqual([
      'Role',
      'RoleBinding',
      'ClusterRole',
      'ClusterRoleBinding',
    ]);
  });

  it('compares with manifests with --compare: exit 0 when they match both ways, 1 with what is missing or unused', async () => {
    const exact = toRbacYaml(permissionsUsed(controllerAccesses()), { name: 'ctl', namespace: 'ctl' });
    const ok = io(served, { 'rbac.yaml': exact });
    expect(await runPermissionsCli(['http://c:1', '--name', 'ctl', '--namespace', 'ctl', '--compare', 'rbac.yaml'], ok.value)).toBe(0);
    expect(JSON.parse(ok.out.join(''))).toMatchObject({ missing: [], unused: [] });
    const short = io(served, { 'rbac.yaml': exact.replace('      - patch\n', '') });
    expect(await runPermissionsCli(['http://c:1', '--name', 'ctl', '--namespace', 'ctl', '--compare', 'rbac.yaml'], short.value)).toBe(1);
    // The first "- patch" is the configmaps rule's: patched in two namespaces, refused in one.
    expect(JSON.parse(short.out.join('')).missing).toEqual([
      { kind: 'resource', verb: 'patch', group: '', resource: 'configmaps', namespace: 'demo', denied: false },
      { kind: 'resource', verb: 'patch', group: '', resource: 'configmaps', namespace: 'other', denied: true },
    ]);
  });

  it.each([
    [[], 'no status server URL given'],
    [['http://c:1', '--namespace', 'ctl'], '--name is required'],
    [['http://c:1', '--name', 'ctl'], '--namespace is required'],
    [['c:1', '--name', 'ctl', '--namespace', 'ctl'], "'c:1' is not an http(s) URL"],
    [['http://c:1', '--name'], '--name needs a value'],
    [['http://c:1', '--nmae', 'x'], "unknown option '--nmae'"],
  ])('refuses %j with usage', async (argv, message) => {
    const t = io(served);
    expect(await runPermissionsCli(argv, t.value)).toBe(PERMISSIONS_USAGE_EXIT_CODE);
    expect(t.err.join('')).toContain(message);
    expect(t.err.join('')).toContain('Usage: protean-permissions');
  });

  it('says why it cannot read the controller', async () => {
    const off = io({ status: 404, body: 'not found: /statusz/permissions\n' });
    expect(await runPermissionsCli(['http://c:1', '--name', 'a', '--namespace', 'b'], off.value)).toBe(1);
    expect(off.err.join('')).toContain(
      'answered 404 (is the controller instrumented with instrumentContainer(container, { connectionPool })?)',
    );
    const down = io(new Error('connect ECONNREFUSED'));
    expect(await runPermissionsCli(['http://c:1', '--name', 'a', '--namespace', 'b'], down.value)).toBe(1);
    expect(down.err.join('')).toContain('cannot read http://c:1/statusz/permissions: connect ECONNREFUSED');
    const missingFile = io(served);
    expect(await runPermissionsCli(['http://c:1', '--name', 'a', '--namespace', 'b', '--compare', 'x.yaml'], missingFile.value)).toBe(1);
    expect(missingFile.err.join('')).toContain('ENOENT: x.yaml');
  });
});
