import 'reflect-metadata';
import { describe, expect, it } from '@jest/globals';
import { KubeConfig } from '@kubernetes/client-node';
import { coreModule, silentLogger, TOKENS, type GroupVersionResource } from '@protean/core';
import { FakeClock, FakeInformerSource } from '@protean/core/testing';
import { Container } from 'inversify';
import { InformerWatchManager } from './InformerWatchManager.js';
import { ResourceAllowList, type GvrPattern } from './ResourceAllowList.js';
import { ResourceNotAllowedError, WatchError } from './WatchError.js';
import { watchManagerModule } from './watchManagerModule.js';

const configmaps: GroupVersionResource = { group: '', version: 'v1', resource: 'configmaps' };
const secrets: GroupVersionResource = { group: '', version: 'v1', resource: 'secrets' };
const webapps: GroupVersionResource = { group: 'demo.protean.dev', version: 'v1', resource: 'webapps' };
const webappsV2: GroupVersionResource = { group: 'demo.protean.dev', version: 'v2', resource: 'webapps' };
const deployments: GroupVersionResource = { group: 'apps', version: 'v1', resource: 'deployments' };
const statefulsets: GroupVersionResource = { group: 'apps', version: 'v1', resource: 'statefulsets' };
const otherConfigmaps: GroupVersionResource = { group: 'example.com', version: 'v1', resource: 'configmaps' };

function manager(allowedResources: readonly GvrPattern[]) {
  const source = new FakeInformerSource({ autoSync: true });
  const wm = new InformerWatchManager(source, 0, () => undefined, silentLogger(), { clock: new FakeClock(), allowedResources });
  return { source, wm };
}

describe('InformerWatchManager allowedResources', () => {
  it('refuses a GVR outside the patterns with a ResourceNotAllowedError naming it and the option, starting nothing', async () => {
    const { source, wm } = manager(['/v1/configmaps', 'demo.protean.dev/*/*']);
    let thrown: unknown;
    await wm.ensureWatch(secrets, 'coordinator').catch((err: unknown) => (thrown = err));
    expect(thrown).toBeInstanceOf(ResourceNotAllowedError);
    expect(thrown).toBeInstanceOf(WatchError);
    expect(thrown).toMatchObject({
      name: 'ResourceNotAllowedError',
      reason: 'NotAllowed',
      gvr: secrets,
      allowedResources: ['/v1/configmaps', 'demo.protean.dev/*/*'],
      message:
        'watch of /v1/secrets: refused: /v1/secrets matches none of allowedResources ["/v1/configmaps","demo.protean.dev/*/*"] (the watch manager option that bounds which GVRs this controller may watch)',
    });
    expect(source.informers()).toEqual([]);
    expect(wm.activeWatchCount()).toBe(0);
  });

  it('starts informers for GVRs the patterns allow', async () => {
    const { source, wm } = manager(['/v1/configmaps', 'demo.protean.dev/*/*', { group: 'apps', resource: 'deployments' }]);
    for (const gvr of [configmaps, webapps, webappsV2, deployments]) await wm.ensureWatch(gvr, 'o');
    expect(source.informers().map((i) => i.gvr)).toEqual([configmaps, webapps, webappsV2, deployments]);
    for (const gvr of [statefulsets, otherConfigmaps])
      await expect(wm.ensureWatch(gvr, 'o')).rejects.toBeInstanceOf(ResourceNotAllowedError);
    wm.shutdown();
  });

  it('is refused the same way every time, never remembered as a sync failure (BackingOff)', async () => {
    const { wm } = manager([]);
    await expect(wm.ensureWatch(configmaps, 'o')).rejects.toMatchObject({ reason: 'NotAllowed' });
    // Asked again, it is refused again for the same reason, not turned away as BackingOff.
    await expect(wm.ensureWatch(configmaps, 'o')).rejects.toMatchObject({ reason: 'NotAllowed' });
  });

  it.each<[GvrPattern, GroupVersionResource, boolean]>([
    ['*/*/*', secrets, true],
    ['*/v1/configmaps', otherConfigmaps, true],
    ['/v1/configmaps', otherConfigmaps, false],
    ['apps/v1/*', statefulsets, true],
    ['apps/*/deployments', statefulsets, false],
    [{ group: '' }, secrets, true],
    [{ group: '', resource: 'configmaps' }, secrets, false],
    [{}, webapps, true],
  ])('pattern %j allows %j: %s', (pattern, gvr, allowed) => {
    expect(new ResourceAllowList([pattern]).allows(gvr)).toBe(allowed);
  });

  it.each<[unknown, string]>([
    ['configmaps', 'allowedResources[0]: "configmaps" is not a GVR pattern: it has 1 segment(s)'],
    ['apps/v1/deployments/scale', 'it has 4 segment(s)'],
    ['apps//deployments', 'version "" is neither * nor a valid name'],
    ['Apps/v1/deployments', 'group "Apps" is neither * nor a valid name'],
    [{ group: 1 }, 'group is not a string'],
    [42, 'it is a number'],
  ])('refuses the pattern %j naming it', (pattern, message) => {
    expect(() => new ResourceAllowList([pattern as GvrPattern])).toThrow(message);
  });

  it('refuses bad patterns when the module is built, and passes the option to the managers it builds', async () => {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'c', server: 'http://127.0.0.1:1', skipTLSVerify: true }],
      users: [{ name: 'u' }],
      contexts: [{ name: 'ctx', cluster: 'c', user: 'u' }],
      currentContext: 'ctx',
    });
    expect(() => watchManagerModule({ kubeConfig: kc, allowedResources: ['configmaps'] })).toThrow(
      'allowedResources[0]: "configmaps" is not a GVR pattern',
    );
    const c = new Container();
    c.load(coreModule({}, silentLogger()), watchManagerModule({ kubeConfig: kc, allowedResources: ['/v1/configmaps'] }));
    const source = new FakeInformerSource({ autoSync: true });
    const wm = c.get(TOKENS.watchManagerFactory)({ source, resyncPeriodMs: 0, onEvent: () => undefined, logger: silentLogger() });
    await wm.ensureWatch(configmaps, 'o');
    await expect(wm.ensureWatch(secrets, 'o')).rejects.toBeInstanceOf(ResourceNotAllowedError);
    wm.shutdown();
  });
});
