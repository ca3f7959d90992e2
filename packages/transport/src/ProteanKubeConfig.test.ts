import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type * as https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfigError } from './KubeConfigError.js';
import { loadKubeConfig, ProteanKubeConfig } from './ProteanKubeConfig.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'protean-kc-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function write(path: string, text: string): string {
  const file = join(dir, path);
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, text);
  return file;
}

const b64 = (s: string): string => Buffer.from(s).toString('base64');

/** A KubeConfig with one cluster `c` and the given user as context `ctx`. */
function single(user: Record<string, unknown>, cluster: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    clusters: [{ name: 'c', cluster: { server: 'https://127.0.0.1:6443', ...cluster } }],
    users: [{ name: 'u', user }],
    contexts: [{ name: 'ctx', context: { cluster: 'c', user: 'u', namespace: 'team' } }],
    'current-context': 'ctx',
  };
}

async function applied(
  kc: ProteanKubeConfig,
  headers: Record<string, string> = { accept: 'application/json' },
): Promise<https.RequestOptions> {
  const options: https.RequestOptions = { method: 'GET', headers };
  await kc.applyToHTTPSOptions(options);
  return options;
}

function from(doc: Record<string, unknown>, options: ConstructorParameters<typeof ProteanKubeConfig>[0] = {}): ProteanKubeConfig {
  const kc = new ProteanKubeConfig(options);
  kc.loadFromObject(doc, dir);
  return kc;
}

describe('ProteanKubeConfig.applyToHTTPSOptions', () => {
  it('adds a bearer token to the existing headers', async () => {
    expect((await applied(from(single({ token: 'abc' })))).headers).toEqual({ accept: 'application/json', Authorization: 'Bearer abc' });
  });

  it('puts the CA, client certificate and key from inline data, the server name and skip-verify on the TLS options', async () => {
    const options = await applied(
      from(
        single(
          { 'client-certificate-data': b64('CERT'), 'client-key-data': b64('KEY') },
          { 'certificate-authority-data': b64('CA'), 'tls-server-name': 'api', 'insecure-skip-tls-verify': true },
        ),
      ),
    );
    expect(options).toMatchObject({
      ca: Buffer.from('CA'),
      cert: Buffer.from('CERT'),
      key: Buffer.from('KEY'),
      servername: 'api',
      rejectUnauthorized: false,
    });
    expect(options.headers).toEqual({ accept: 'application/json' });
  });

  it('reads the CA, certificate and key files relative to the KubeConfig file', async () => {
    write('kube/pki/ca.crt', 'CA-FILE');
    write('kube/pki/u.crt', 'CERT-FILE');
    write('kube/pki/u.key', 'KEY-FILE');
    const file = write(
      'kube/config',
      JSON.stringify(single({ 'client-certificate': 'pki/u.crt', 'client-key': 'pki/u.key' }, { 'certificate-authority': 'pki/ca.crt' })),
    );
    const kc = new ProteanKubeConfig();
    kc.loadFromFile(file);
    expect(await applied(kc)).toMatchObject({ ca: Buffer.from('CA-FILE'), cert: Buffer.from('CERT-FILE'), key: Buffer.from('KEY-FILE') });
  });

  it('sets basic auth from username and password', async () => {
    expect((await applied(from(single({ username: 'bob', password: 's3cret' })))).auth).toBe('bob:s3cret');
  });

  it('re-reads a rotated token file once the refresh period has passed, and keeps the last token while the file is missing', async () => {
    const tokenFile = write('token', 'first\n');
    let now = 0;
    const kc = from(single({ token: 'static', tokenFile }), { now: () => now, fileRefreshMs: 60_000 });
    expect((await applied(kc)).headers).toMatchObject({ Authorization: 'Bearer first' });
    write('token', 'second');
    now = 59_999;
    expect((await applied(kc)).headers).toMatchObject({ Authorization: 'Bearer first' });
    now = 60_000;
    expect((await applied(kc)).headers).toMatchObject({ Authorization: 'Bearer second' });
    rmSync(tokenFile);
    now = 200_000;
    expect((await applied(kc)).headers).toMatchObject({ Authorization: 'Bearer second' });
  });

  it('takes the token from an exec plugin given by a path relative to the KubeConfig, running it once until it expires', async () => {
    const plugin = write(
      'kube/bin/cred.sh',
      `#!/bin/sh\necho run >> "${join(dir, 'runs')}"\nprintf '{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"token":"from-exec-%s","expirationTimestamp":"2026-12-01T10:01:00Z"}}' "$1"\n`,
    );
    chmodSync(plugin, 0o755);
    const file = write(
      'kube/config',
      JSON.stringify(
        single({ token: 'static', exec: { apiVersion: 'client.authentication.k8s.io/v1beta1', command: './bin/cred.sh', args: ['x'] } }),
      ),
    );
    let now = Date.parse('2026-12-01T10:00:00Z');
    const kc = new ProteanKubeConfig({ now: () => now, stdinIsTTY: false });
    kc.loadFromFile(file);
    expect((await applied(kc)).headers).toMatchObject({ Authorization: 'Bearer from-exec-x' });
    await applied(kc);
    now += 61_000;
    await applied(kc);
    expect(readFileSync(join(dir, 'runs'), 'utf8')).toBe('run\nrun\n');
  });

  it('refuses an auth-provider user by name, saying what to use instead', async () => {
    const err = await applied(from(single({ 'auth-provider': { name: 'oidc' } }))).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(KubeConfigError);
    expect(err).toMatchObject({ reason: 'Unsupported' });
    expect((err as Error).message).toContain(
      'user "u" uses auth-provider "oidc", which ProteanKubeConfig does not support: use an exec credential plugin instead (kubelogin for oidc',
    );
  });

  it('refuses a cluster with a proxy-url rather than going around the proxy', async () => {
    await expect(applied(from(single({ token: 't' }, { 'proxy-url': 'http://proxy:3128' })))).rejects.toMatchObject({
      name: 'KubeConfigError',
      reason: 'Unsupported',
      message: expect.stringContaining('cluster "c" has a proxy-url'),
    });
  });

  it('fails with NoContext naming what is missing', async () => {
    await expect(applied(from({ ...single({}), 'current-context': undefined }))).rejects.toMatchObject({
      reason: 'NoContext',
      message: 'KubeConfig object: no current-context is set',
    });
    await expect(applied(from({ ...single({}), users: [] }))).rejects.toMatchObject({
      reason: 'NoContext',
      message: 'KubeConfig object: user "u" of context "ctx" does not exist',
    });
  });
});

describe('ProteanKubeConfig contexts', () => {
  const two = {
    clusters: [
      { name: 'a', cluster: { server: 'https://a' } },
      { name: 'b', cluster: { server: 'https://b' } },
    ],
    users: [{ name: 'u', user: { token: 't' } }],
    contexts: [
      { name: 'ctx-a', context: { cluster: 'a', user: 'u' } },
      { name: 'ctx-b', context: { cluster: 'b', user: 'u', namespace: 'nb' } },
    ],
    'current-context': 'ctx-a',
  };

  it('follows current-context, and setCurrentContext switches cluster, user and namespace', () => {
    const kc = from(two);
    expect(kc.getCurrentContext()).toBe('ctx-a');
    expect(kc.getCurrentCluster()?.server).toBe('https://a');
    kc.setCurrentContext('ctx-b');
    expect([kc.getCurrentCluster()?.server, kc.getCurrentUser()?.name, kc.getCurrentNamespace()]).toEqual(['https://b', 'u', 'nb']);
  });

  it('refuses an unknown context, listing the known ones', () => {
    expect(() => from(two).setCurrentContext('nope')).toThrow('KubeConfig object: no context named "nope" (contexts: ctx-a, ctx-b)');
  });

  it('loadKubeConfig loads as loadFromDefault and applies the context override', () => {
    const file = write('config', JSON.stringify(two));
    const kc = loadKubeConfig({ env: { KUBECONFIG: file }, context: 'ctx-b' });
    expect(kc.getCurrentCluster()?.server).toBe('https://b');
  });

  it('loads from the service account in a pod, with the mounted token', async () => {
    write('sa/token', 'sa-token');
    write('sa/ca.crt', 'SA-CA');
    write('sa/namespace', 'ctl');
    const kc = new ProteanKubeConfig();
    kc.loadFromCluster({
      env: { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' },
      serviceAccountDir: join(dir, 'sa'),
    });
    expect(await applied(kc)).toMatchObject({ ca: Buffer.from('SA-CA'), headers: { Authorization: 'Bearer sa-token' } });
    expect([kc.getCurrentCluster()?.server, kc.getCurrentNamespace()]).toEqual(['https://10.0.0.1:443', 'ctl']);
  });

  it('has no current cluster before anything is loaded', () => {
    expect(new ProteanKubeConfig().getCurrentCluster()).toBeNull();
  });
});
