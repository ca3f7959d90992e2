// Each layout's deploy/ on a real kube-apiserver: every object passes a server-side dry run, strictly.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeClient } from '@protean/client';
import { kubeRequest, startKubeApiServer, type KubeApiServer } from '@protean/envtest';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateProject } from './generateProject.js';
import { LAYOUTS } from './Layout.js';
import { gvrOf, kustomizationResources, readDeployObjects, type DeployObject } from './testing/deployObjects.js';

let server: KubeApiServer;
let client: KubeClient;
let work: string;

beforeAll(async () => {
  server = await startKubeApiServer();
  client = new KubeClient({ kubeConfig: server.kubeConfig });
  work = mkdtempSync(join(tmpdir(), 'create-protean-deploy-'));
});

afterAll(async () => {
  client?.close();
  await server?.stop();
  rmSync(work, { recursive: true, force: true });
});

/** POSTs `object` with dryRun=All and returns the API server's warnings (PodSecurity's among them). */
async function dryRunWarnings(object: DeployObject['object']): Promise<{ status: number; warnings: string[] }> {
  const { group, version, resource } = gvrOf(object);
  const base = group === '' ? `/api/${version}` : `/apis/${group}/${version}`;
  const path = `${base}/namespaces/${object.metadata.namespace}/${resource}?dryRun=All&fieldValidation=Strict`;
  const res = await kubeRequest(server.kubeConfig, 'POST', path, { body: object });
  const header = res.headers['warning'];
  return { status: res.status, warnings: header === undefined ? [] : [header].flat() };
}

describe.each(LAYOUTS)("the %s layout's deploy/", (layout) => {
  const name = layout === 'sharding' ? 'sharded-controller' : 'leading-controller';
  let dir: string;
  let objects: DeployObject[];

  beforeAll(() => {
    dir = join(work, name);
    generateProject({ directory: dir, layout });
    objects = readDeployObjects(dir);
  });

  it('lists every manifest in kustomization.yaml', () => {
    const files = readdirSync(join(dir, 'deploy')).filter((f) => f !== 'kustomization.yaml');
    expect([...kustomizationResources(dir)].sort()).toEqual(files.sort());
    expect(objects.map((o) => o.object.kind)).toEqual([
      'Namespace',
      'CustomResourceDefinition',
      'ServiceAccount',
      'Role',
      'RoleBinding',
      'ClusterRole',
      'ClusterRoleBinding',
      'Deployment',
      'PodDisruptionBudget',
      'Service',
      'NetworkPolicy',
    ]);
  });

  it('passes a server-side dry run, object by object, with strict field validation', async () => {
    const [namespace, ...rest] = objects;
    expect(namespace?.object.kind).toBe('Namespace');
    const accepted: string[] = [];
    const dryRun = async ({ file, object }: DeployObject): Promise<void> => {
      const stored = await client.create(gvrOf(object), object, { dryRun: true, fieldValidation: 'Strict' });
      accepted.push(`${file}: ${stored.kind ?? object.kind} ${stored.metadata.name}`);
    };
    await dryRun(namespace!);
    // A dry-run Namespace is not created, and the namespaced objects need theirs: create it for real.
    await client.create(gvrOf(namespace!.object), namespace!.object);
    for (const object of rest) await dryRun(object);
    expect(accepted).toEqual(objects.map(({ file, object }) => `${file}: ${object.kind} ${object.metadata.name}`));
    // Nothing but the Namespace was stored.
    const deployment = objects.find((o) => o.object.kind === 'Deployment')!.object;
    expect(await client.find(gvrOf(deployment), { namespace: name, name })).toBeUndefined();
  });

  it('runs its Pods under the restricted Pod Security Standard (no PodSecurity warning), which a Pod without a securityContext breaks', async () => {
    const deployment = objects.find((o) => o.object.kind === 'Deployment')!.object;
    expect(await dryRunWarnings(deployment)).toEqual({ status: 201, warnings: [] });
    // The check sees a violation: the same Deployment without its container securityContext.
    const bare = structuredClone(deployment) as unknown as { spec: { template: { spec: { containers: Array<Record<string, unknown>> } } } };
    for (const c of bare.spec.template.spec.containers) delete c['securityContext'];
    const { status, warnings } = await dryRunWarnings(bare as unknown as DeployObject['object']);
    expect(status).toBe(201);
    expect(warnings.join('\n')).toContain('would violate PodSecurity');
    expect(warnings.join('\n')).toContain('must set securityContext.allowPrivilegeEscalation=false');
  });
});
