// A generated controller as the least-privilege tests run it: its deploy/
// objects (all but the Deployment) applied with admin credentials, then its
// bundled dist/main.js started as a child process that authenticates as
// its ServiceAccount only (a TokenRequest token in its KUBECONFIG file).
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { kubeRequest, serviceAccountKubeConfig, writeKubeConfigFile } from '@protean/envtest';
import { waitFor } from '@protean/core/testing';
import { applyManifests, ResourcePaths } from './applyManifests.js';
import { ControllerProcess, freePort } from './controllerProcess.js';
import { readKustomization, type Manifest } from './deployManifests.js';
import { parentTypeOf, type ParentType } from './parentLifecycle.js';

/** The objects of `deploy/` a test applies: everything but the Deployment, which the test replaces by a child process. */
export function clusterObjectsOf(deployDir: string): Manifest[] {
  return readKustomization(deployDir).filter((o) => o.kind !== 'Deployment');
}

/** Where a generated project is and how its controller runs. */
export interface ControllerUnderTestOptions {
  /** The generated project's directory (holds deploy/ and the bundled dist/main.js). */
  projectDir: string;
  /** Extra environment of the controller process (e.g. a short resync period). */
  env?: Record<string, string>;
  /** Scratch directory for the KubeConfig file. */
  tempDir: string;
}

export class ControllerUnderTest {
  readonly manifests: Manifest[];
  readonly parent: ParentType;
  readonly serviceAccount: { namespace: string; name: string };
  private kubeConfigFile: string | undefined;
  private started = 0;
  private readonly paths: ResourcePaths;

  constructor(
    private readonly admin: KubeConfig,
    private readonly options: ControllerUnderTestOptions,
  ) {
    this.manifests = clusterObjectsOf(join(options.projectDir, 'deploy'));
    this.parent = parentTypeOf(this.manifests);
    const sas = this.manifests.filter((o) => o.kind === 'ServiceAccount');
    if (sas.length !== 1) throw new Error(`expected one ServiceAccount in deploy/, found ${sas.length}`);
    this.serviceAccount = { namespace: sas[0]!.metadata.namespace!, name: sas[0]!.metadata.name };
    this.paths = new ResourcePaths(admin);
  }

  /** Applies `objects` (default: the shipped ones) with the admin credentials. */
  async apply(objects: readonly Manifest[] = this.manifests): Promise<void> {
    await applyManifests(this.admin, objects, this.paths);
  }

  /** Deletes every Lease in the controller's namespace, so the next process starts as on a fresh install. */
  async forgetLeases(): Promise<void> {
    const r = await kubeRequest(this.admin, 'DELETE', `/apis/coordination.k8s.io/v1/namespaces/${this.serviceAccount.namespace}/leases`);
    if (r.status !== 200) throw new Error(`deleting the leases: ${r.status} ${r.text.slice(0, 300)}`);
  }

  /**
   * Starts `node dist/main.js` as the ServiceAccount (KUBECONFIG with its
   * token), with POD_NAMESPACE, POD_NAME and METRICS_PORT set; resolves
   * once its metrics server answers, or it exited.
   */
  async start(): Promise<ControllerProcess> {
    if (this.kubeConfigFile === undefined) {
      const kc = await serviceAccountKubeConfig(this.admin, this.serviceAccount);
      this.kubeConfigFile = await writeKubeConfigFile(kc, join(this.options.tempDir, 'controller.kubeconfig'));
    }
    const port = await freePort();
    const podName = `${this.serviceAccount.name}-${++this.started}`;
    const proc = new ControllerProcess(
      podName,
      join(this.options.projectDir, 'dist', 'main.js'),
      port,
      {
        KUBECONFIG: this.kubeConfigFile,
        POD_NAMESPACE: this.serviceAccount.namespace,
        POD_NAME: podName,
        METRICS_PORT: String(port),
        ...this.options.env,
      },
      this.options.projectDir,
    );
    try {
      await waitFor(async () => (await proc.get('/healthz')) !== undefined || !proc.running, {
        timeoutMs: 30_000,
        intervalMs: 50,
        message: `the metrics server of ${podName} on port ${port}`,
      });
    } catch (err) {
      await proc.stop();
      throw new Error(`${(err as Error).message}\n--- output ---\n${proc.tail()}`, { cause: err });
    }
    // A process that exited at start (a refused request it cannot run without) is returned as it is: the caller judges it.
    return proc;
  }
}
