// Each layout's bundled dist/main.js as a process against a real kube-apiserver: it gets ready,
// reconciles, serves its status page, and stops by itself on SIGTERM, releasing its lease.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeClient, type KubeObject } from '@protean/client';
import { startKubeApiServer, waitUntil, type KubeApiServer } from '@protean/envtest';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { LAYOUTS } from './Layout.js';
import { gvrOf, readDeployObjects } from './testing/deployObjects.js';
import { prepareGeneratedProject, type PreparedProject } from './testing/prepareGeneratedProject.js';

const LEASES = { group: 'coordination.k8s.io', version: 'v1', resource: 'leases' };
const CONFIGMAPS = { group: '', version: 'v1', resource: 'configmaps' };

let server: KubeApiServer;
let client: KubeClient;
const projects: PreparedProject[] = [];

beforeAll(async () => {
  server = await startKubeApiServer();
  client = new KubeClient({ kubeConfig: server.kubeConfig });
});

afterAll(async () => {
  client?.close();
  await server?.stop();
  projects.forEach((p) => p.remove());
});

/** The running controller: its output so far, the URL it serves on, and its exit. */
interface Running {
  readonly child: ChildProcess;
  readonly output: () => string;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Started as `npm start` (and the image's CMD) starts it: node's flags from package.json's start script. */
function startMain(dir: string, env: Record<string, string>): Running {
  const start = (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start.split(' ');
  if (start[0] !== 'node' || start.at(-1) !== 'dist/main.js')
    throw new Error(`package.json's start is not node [flags] dist/main.js: ${start.join(' ')}`);
  const child = spawn(process.execPath, [...start.slice(1, -1), 'dist/main.js'], {
    cwd: dir,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, output: () => output, exited };
}

/** The metrics URL the controller logs once it serves. */
async function loggedUrl(r: Running): Promise<string> {
  let url = '';
  await waitUntil(
    () => {
      url = /"url":"(http:[^"]+)"/.exec(r.output())?.[1] ?? '';
      return url !== '';
    },
    `the controller to log its metrics URL (output so far: ${r.output().slice(-500)})`,
    30_000,
  );
  return url;
}

describe.each(LAYOUTS)('the generated %s controller process (dist/main.js)', (layout) => {
  const name = layout === 'sharding' ? 'sharded-main' : 'leading-main';
  let project: PreparedProject;
  let running: Running | undefined;

  beforeAll(async () => {
    project = prepareGeneratedProject(layout, { build: true, name });
    projects.push(project);
    // The cluster side, as an administrator would apply it: the CRD and the controller's namespace.
    for (const { object } of readDeployObjects(project.dir).filter((o) =>
      ['CustomResourceDefinition', 'Namespace'].includes(o.object.kind),
    ))
      await client.create(gvrOf(object), object);
  });

  afterAll(async () => {
    if (running !== undefined && running.child.exitCode === null) {
      running.child.kill('SIGKILL');
      await running.exited;
    }
  });

  it('gets ready, reconciles a parent, serves /statusz, and exits 0 on SIGTERM after releasing its lease', async () => {
    const crd = readDeployObjects(project.dir).find((o) => o.object.kind === 'CustomResourceDefinition')!.object as unknown as {
      spec: { group: string; names: { plural: string; kind: string; singular: string } };
    };
    const parents = { group: crd.spec.group, version: 'v1alpha1', resource: crd.spec.names.plural };
    await waitUntil(
      () =>
        client.list(parents).then(
          () => true,
          () => false,
        ),
      `${parents.resource} to be served`,
      30_000,
    );
    const kubeconfig = join(project.dir, 'kubeconfig.yaml');
    writeFileSync(kubeconfig, server.kubeConfig.exportConfig());
    running = startMain(project.dir, { KUBECONFIG: kubeconfig, POD_NAMESPACE: name, POD_NAME: `${name}-0`, METRICS_PORT: '0' });
    const r = running;

    const url = await loggedUrl(r);
    const ready = async (): Promise<boolean> => (await fetch(`${url}/readyz`).catch(() => undefined))?.status === 200;
    await waitUntil(ready, '/readyz to answer 200', 30_000);

    await client.create(parents, {
      apiVersion: `${parents.group}/v1alpha1`,
      kind: crd.spec.names.kind,
      metadata: { name: 'one', namespace: 'default' },
      spec: { message: 'from the process' },
    });
    const child = `one-${crd.spec.names.singular}`;
    await waitUntil(
      async () =>
        (await client.find<KubeObject & { data?: Record<string, string> }>(CONFIGMAPS, { namespace: 'default', name: child }))?.data?.[
          'message'
        ] === 'from the process',
      `the process to apply ConfigMap ${child}`,
      30_000,
    );
    const page = await fetch(`${url}/statusz`);
    expect(page.status).toBe(200);
    // What an operator would see of this small controller (a figure for deploy/'s memory request, not asserted).
    const status = readFileSync(`/proc/${r.child.pid}/status`, 'utf8');
    const mib = (field: string): string => (Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]) / 1024).toFixed(0);
    process.stdout.write(
      `generated ${layout} controller, ready and one parent reconciled: RSS ${mib('VmRSS')} MiB, peak ${mib('VmHWM')} MiB\n`,
    );
    expect(page.headers.get('content-type')).toContain('text/html');

    r.child.kill('SIGTERM');
    expect(await r.exited).toEqual({ code: 0, signal: null });
    expect(r.output()).toContain('received SIGTERM: shutting down gracefully');
    // It released its lease(s): no holder left in its namespace.
    const holders = (await client.list<KubeObject & { spec?: { holderIdentity?: string } }>(LEASES, { namespace: name }))
      .map((l) => l.spec?.holderIdentity)
      .filter((h) => h !== undefined && h !== '');
    expect(holders).toEqual([]);
  }, 120_000);

  it("runs on a developer's machine without the Pod's environment: namespace default, the host's name, loopback", async () => {
    const kubeconfig = join(project.dir, 'kubeconfig.yaml');
    writeFileSync(kubeconfig, server.kubeConfig.exportConfig());
    // As `npm start` / `npm run dev` outside a cluster: none of what the Deployment sets.
    running = startMain(project.dir, {
      KUBECONFIG: kubeconfig,
      POD_NAMESPACE: '',
      POD_NAME: '',
      KUBERNETES_SERVICE_HOST: '',
      METRICS_PORT: '0',
    });
    const r = running;
    const url = await loggedUrl(r);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    await waitUntil(async () => (await fetch(`${url}/readyz`).catch(() => undefined))?.status === 200, '/readyz to answer 200', 30_000);
    const holders = async (): Promise<string[]> =>
      (await client.list<KubeObject & { spec?: { holderIdentity?: string } }>(LEASES, { namespace: 'default' }))
        .map((l) => l.spec?.holderIdentity ?? '')
        .filter((h) => h !== '');
    await waitUntil(async () => (await holders()).length > 0, 'a lease held in namespace default', 30_000);
    expect((await holders()).every((h) => h.startsWith(`${hostname()}_`))).toBe(true);
    r.child.kill('SIGTERM');
    expect(await r.exited).toEqual({ code: 0, signal: null });
  }, 120_000);
});
