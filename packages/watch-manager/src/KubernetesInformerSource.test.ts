import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { InvalidGroupVersionResourceError, InvalidObjectNameError, silentLogger, type GroupVersionResource } from '@protean/core';
import { KubernetesInformerSource } from './KubernetesInformerSource.js';
import { InformerWatchManager } from './InformerWatchManager.js';

/** The malformed GVRs that once became URLs: each addressed some other path of the server. */
const MALFORMED: ReadonlyArray<[string, GroupVersionResource]> = [
  ['a path as resource', { group: '', version: 'v1', resource: 'namespaces/default/configmaps' }],
  ['".." as resource', { group: '', version: 'v1', resource: '..' }],
  ['"." as resource', { group: '', version: 'v1', resource: '.' }],
  ['an upper-case resource', { group: '', version: 'v1', resource: 'ConfigMaps' }],
  ['an empty resource', { group: '', version: 'v1', resource: '' }],
  ['a slash in the group', { group: 'a/b', version: 'v1', resource: 'things' }],
  ['a path in the version', { group: '', version: 'v1/..', resource: 'configmaps' }],
  ['an encoded slash', { group: '', version: 'v1', resource: 'namespaces%2Fdefault%2Fconfigmaps' }],
];

let server: http.Server;
let requests: string[];
let kubeConfig: KubeConfig;

beforeAll(async () => {
  requests = [];
  server = http.createServer((req, res) => {
    requests.push(req.url ?? '');
    res.writeHead(404, { 'Content-Type': 'application/json' }).end('{"kind":"Status","code":404}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ name: 'c', server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, skipTLSVerify: true }],
    users: [{ name: 'u', token: 't' }],
    contexts: [{ name: 'ctx', cluster: 'c', user: 'u' }],
    currentContext: 'ctx',
  });
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('KubernetesInformerSource refuses what breaks Kubernetes naming rules', () => {
  it.each(MALFORMED)('createInformer refuses %s with InvalidGroupVersionResourceError quoting it', (_what, gvr) => {
    const source = new KubernetesInformerSource({ kubeConfig });
    const err = (() => {
      try {
        source.createListWatch(gvr);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(err).toBeInstanceOf(InvalidGroupVersionResourceError);
    const field = (err as InvalidGroupVersionResourceError).field!;
    expect((err as Error).message).toContain(`${field} ${JSON.stringify(gvr[field])}`);
    expect(requests).toEqual([]);
  });

  it.each(MALFORMED)('an InformerWatchManager over it rejects ensureWatch of %s and nothing reaches the server', async (_what, gvr) => {
    const wm = new InformerWatchManager(new KubernetesInformerSource({ kubeConfig }), 0, () => undefined, silentLogger());
    await expect(wm.ensureWatch(gvr, 'owner')).rejects.toThrow(InvalidGroupVersionResourceError);
    expect(wm.activeWatchCount()).toBe(0);
    wm.shutdown();
    expect(requests).toEqual([]);
  });

  it.each(['Default', 'default/configmaps', '..', 'a%2Fb'])(
    'the constructor refuses the namespace %j with InvalidObjectNameError',
    (namespace) => {
      expect(() => new KubernetesInformerSource({ kubeConfig, namespace })).toThrow(InvalidObjectNameError);
      expect(() => new KubernetesInformerSource({ kubeConfig, namespace })).toThrow(`invalid namespace ${JSON.stringify(namespace)}`);
    },
  );

  it('still builds informers of well-formed GVRs, in one namespace or all', () => {
    const gvr = { group: 'demo.protean.dev', version: 'v1alpha1', resource: 'webapps' };
    expect(new KubernetesInformerSource({ kubeConfig }).createListWatch(gvr).gvr).toEqual(gvr);
    expect(new KubernetesInformerSource({ kubeConfig, namespace: 'team-a' }).createListWatch(gvr).gvr).toEqual(gvr);
    expect(requests).toEqual([]);
  });
});
