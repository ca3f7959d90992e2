import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { KubeConfigError } from './KubeConfigError.js';
import { inClusterKubeConfig, loadDefaultKubeConfigData, loadKubeConfigFile } from './loadKubeConfigData.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'protean-kubeconfig-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function write(path: string, text: string): string {
  const file = join(dir, path);
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, text);
  return file;
}

const config = (cluster: string, server: string, current?: string): string =>
  `clusters: [{name: ${cluster}, cluster: {server: "${server}", certificate-authority: ca.crt}}]\n` +
  `contexts: [{name: ${cluster}, context: {cluster: ${cluster}}}]\n${current === undefined ? '' : `current-context: ${current}\n`}`;

function serviceAccount(namespace = 'ctl\n'): string {
  write('sa/token', 'tok');
  write('sa/ca.crt', 'CA');
  write('sa/namespace', namespace);
  return join(dir, 'sa');
}

describe('loadDefaultKubeConfigData', () => {
  it('merges the KUBECONFIG files first-wins, skips missing ones and resolves each file relative to its own directory', () => {
    const a = write('a/config', config('shared', 'https://a', 'shared'));
    const b = write('b/config', `${config('shared', 'https://b', 'other')}` + 'users: [{name: u, user: {tokenFile: tok}}]\n');
    const data = loadDefaultKubeConfigData({ env: { KUBECONFIG: [a, join(dir, 'missing'), '', b].join(delimiter) }, homeDir: dir });
    expect(data.currentContext).toBe('shared');
    expect(data.clusters).toEqual([
      { name: 'shared', server: 'https://a', certificateAuthority: join(dir, 'a/ca.crt'), insecureSkipTlsVerify: false },
    ]);
    expect(data.users).toEqual([{ name: 'u', tokenFile: join(dir, 'b/tok') }]);
  });

  it('fails with NotFound naming KUBECONFIG when none of its files exists', () => {
    const kubeconfig = [join(dir, 'x'), join(dir, 'y')].join(delimiter);
    expect(() => loadDefaultKubeConfigData({ env: { KUBECONFIG: kubeconfig }, homeDir: dir })).toThrow(
      expect.objectContaining({ reason: 'NotFound', message: `KUBECONFIG: none of the files in KUBECONFIG=${kubeconfig} exists` }),
    );
  });

  it('reads ~/.kube/config when KUBECONFIG is not set, before the service account', () => {
    write('.kube/config', config('home', 'https://home', 'home'));
    const data = loadDefaultKubeConfigData({
      env: { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' },
      homeDir: dir,
      serviceAccountDir: serviceAccount(),
    });
    expect(data.clusters.map((c) => c.server)).toEqual(['https://home']);
  });

  it('falls back to the service account in a pod', () => {
    const data = loadDefaultKubeConfigData({
      env: { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' },
      homeDir: dir,
      serviceAccountDir: serviceAccount(),
    });
    expect(data.clusters[0]?.server).toBe('https://10.0.0.1:443');
  });

  it('fails with NotFound naming every place it looked', () => {
    let caught: unknown;
    try {
      loadDefaultKubeConfigData({ env: {}, homeDir: dir, serviceAccountDir: join(dir, 'none') });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(KubeConfigError);
    expect((caught as KubeConfigError).reason).toBe('NotFound');
    expect((caught as Error).message).toBe(
      `KubeConfig: no KubeConfig found: KUBECONFIG is not set, ${join(dir, '.kube/config')} does not exist, and not in a pod ` +
        '(in-cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set: not running in a pod)',
    );
  });
});

describe('inClusterKubeConfig', () => {
  it('uses the service host and port, the mounted CA, token file and namespace', () => {
    const sa = serviceAccount();
    expect(
      inClusterKubeConfig({ env: { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '6443' }, serviceAccountDir: sa }),
    ).toEqual({
      clusters: [
        { name: 'in-cluster', server: 'https://10.0.0.1:6443', certificateAuthority: join(sa, 'ca.crt'), insecureSkipTlsVerify: false },
      ],
      users: [{ name: 'in-cluster', tokenFile: join(sa, 'token') }],
      contexts: [{ name: 'in-cluster', cluster: 'in-cluster', user: 'in-cluster', namespace: 'ctl' }],
      currentContext: 'in-cluster',
    });
  });

  it('brackets an IPv6 service host', () => {
    const data = inClusterKubeConfig({
      env: { KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '443' },
      serviceAccountDir: serviceAccount(),
    });
    expect(data.clusters[0]?.server).toBe('https://[fd00::1]:443');
  });

  it('fails with NotFound when the token is not mounted', () => {
    expect(() =>
      inClusterKubeConfig({ env: { KUBERNETES_SERVICE_HOST: 'h', KUBERNETES_SERVICE_PORT: '1' }, serviceAccountDir: join(dir, 'none') }),
    ).toThrow(
      expect.objectContaining({ reason: 'NotFound', message: `in-cluster: no service account token at ${join(dir, 'none/token')}` }),
    );
  });
});

describe('loadKubeConfigFile', () => {
  it('fails with ReadFailed naming the file', () => {
    const missing = join(dir, 'nope');
    expect(() => loadKubeConfigFile(missing)).toThrow(
      expect.objectContaining({
        name: 'KubeConfigError',
        reason: 'ReadFailed',
        source: missing,
        message: expect.stringContaining(`${missing}: cannot read the KubeConfig: ENOENT`),
      }),
    );
  });
});
