import { afterAll, beforeAll } from '@jest/globals';
import type { KubeConfig } from '@kubernetes/client-node';
import type { ConformanceCluster, ConformanceStartOptions, ConformanceTarget } from './ConformanceTarget.js';
import { WIDGET_CRD, THING_CRD, createCrd } from './fixtures.js';
import { kubeRequest } from '@protean/envtest';

/**
 * What a group of conformance tests shares: the target, its running
 * cluster (started in `beforeAll`, with the fixture CRDs served) and fresh
 * namespaces per test.
 */
export class SuiteContext {
  private running: ConformanceCluster | undefined;
  private namespaces = 0;

  constructor(readonly target: ConformanceTarget) {}

  /** Registers `beforeAll`/`afterAll` hooks in the calling describe block. */
  static install(target: ConformanceTarget, opts: ConformanceStartOptions = {}): SuiteContext {
    const ctx = new SuiteContext(target);
    beforeAll(async () => {
      ctx.running = await target.start(opts);
      await createCrd(ctx.kc, WIDGET_CRD);
      await createCrd(ctx.kc, THING_CRD);
    });
    afterAll(async () => {
      await ctx.running?.stop();
    });
    return ctx;
  }

  get cluster(): ConformanceCluster {
    if (this.running === undefined) throw new Error(`the ${this.target.name} cluster is not running (beforeAll failed?)`);
    return this.running;
  }

  get kc(): KubeConfig {
    return this.cluster.kubeConfig;
  }

  get isReal(): boolean {
    return this.target.name === 'kube-apiserver';
  }

  /**
   * The value for this target where the in-memory server deliberately
   * differs from the real one; `reason` says why the difference is harmless
   * (one line, at the call site; it is what a reader of a failure sees).
   */
  deliberate<T>(values: Record<ConformanceTarget['name'], T>, reason: string): T {
    if (reason.trim() === '') throw new TypeError('a deliberate difference needs a reason');
    return values[this.target.name];
  }

  /** Creates and returns a namespace no other test uses. */
  async namespace(prefix: string): Promise<string> {
    const name = `${prefix}-${++this.namespaces}`;
    const r = await kubeRequest(this.kc, 'POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } },
    });
    if (r.status !== 201) throw new Error(`creating namespace ${name} answered ${r.status}: ${r.text}`);
    return name;
  }
}
