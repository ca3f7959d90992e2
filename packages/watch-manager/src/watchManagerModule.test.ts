import 'reflect-metadata';
import { describe, expect, it } from '@jest/globals';
import { KubeConfig } from '@kubernetes/client-node';
import { coreModule, silentLogger, TOKENS } from '@protean/core';
import { FakeInformerSource } from '@protean/core/testing';
import { Container } from 'inversify';
import { KubernetesInformerSource } from './KubernetesInformerSource.js';
import { InformerWatchManager } from './InformerWatchManager.js';
import { watchManagerModule } from './watchManagerModule.js';

function kubeConfig(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: 'http://127.0.0.1:1', skipTLSVerify: true }],
    users: [{ name: 'u', token: 't' }],
    contexts: [{ name: 'ctx', cluster: 'c', user: 'u' }],
    currentContext: 'ctx',
  });
  return kc;
}

function container(): Container {
  const c = new Container();
  c.load(coreModule({}, silentLogger()), watchManagerModule({ kubeConfig: kubeConfig() }));
  return c;
}

describe('watchManagerModule', () => {
  it('binds a KubernetesInformerSource and a factory of WatchManagers', () => {
    const c = container();
    const source = c.get(TOKENS.informerSource);
    expect(source).toBeInstanceOf(KubernetesInformerSource);
    expect(c.get(TOKENS.informerSource)).toBe(source);
    const watchManager = c.get(TOKENS.watchManagerFactory)({ source, resyncPeriodMs: 0, onEvent: () => undefined, logger: silentLogger() });
    expect(watchManager).toBeInstanceOf(InformerWatchManager);
    expect(watchManager.activeWatchCount()).toBe(0);
  });

  it('binds the informer source it is given instead of a Kubernetes one, with no KubeConfig', () => {
    const mySource = new FakeInformerSource();
    const c = new Container();
    c.load(
      coreModule({}, silentLogger()),
      watchManagerModule({ source: mySource, allowedResources: [{ group: '', resource: 'configmaps' }] }),
    );
    expect(c.get(TOKENS.informerSource)).toBe(mySource);
  });

  it('lets a rebind of TOKENS.informerSource replace the source the watch manager uses', async () => {
    const mySource = new FakeInformerSource();
    const c = container();
    c.rebind(TOKENS.informerSource).toConstantValue(mySource);
    const source = c.get(TOKENS.informerSource);
    expect(source).toBe(mySource);
    const watchManager = c.get(TOKENS.watchManagerFactory)({ source, resyncPeriodMs: 0, onEvent: () => undefined, logger: silentLogger() });
    await watchManager.ensureWatch({ group: '', version: 'v1', resource: 'configmaps' }, 'owner');
    const created = mySource.informers().map((i) => i.gvr);
    expect(created).toEqual([{ group: '', version: 'v1', resource: 'configmaps' }]);
    watchManager.shutdown();
  });

  it('builds every watch manager with the options it was given', () => {
    const c = new Container();
    c.load(coreModule({}, silentLogger()), watchManagerModule({ kubeConfig: kubeConfig(), watchManager: { syncTimeoutMs: 1234 } }));
    const deps = { source: c.get(TOKENS.informerSource), resyncPeriodMs: 0, onEvent: () => undefined, logger: silentLogger() };
    const built = c.get(TOKENS.watchManagerFactory)(deps) as InformerWatchManager;
    expect(built.syncTimeoutMs).toBe(1234);
    expect((container().get(TOKENS.watchManagerFactory)(deps) as InformerWatchManager).syncTimeoutMs).toBe(30_000);
    // The watch manager's options are not informer-source options.
    expect(c.get(TOKENS.informerSource)).toBeInstanceOf(KubernetesInformerSource);
  });

  it('checks the watch manager options when it is built, naming the bad one', () => {
    const source = new FakeInformerSource();
    expect(() => watchManagerModule({ source, watchManager: { failFastMs: -1 } })).toThrow(RangeError);
    expect(() => watchManagerModule({ source, watchManager: { failFastMs: -1 } })).toThrow(/failFastMs must be >= 0, got -1/);
    expect(() => watchManagerModule({ source, watchManager: { failureBackoff: { initialMs: 10, maxMs: 5 } } })).toThrow(
      'failureBackoff: need 0 <= initialMs <= maxMs, got initialMs=10 maxMs=5',
    );
    expect(() => watchManagerModule({ source, allowedResources: ['apps/v1'] })).toThrow(/allowedResources\[0\]/);
  });

  it('requires a kubeConfig or a source', () => {
    expect(() => watchManagerModule({} as never)).toThrow('options.kubeConfig (or an informer source as options.source) is required');
  });
});
