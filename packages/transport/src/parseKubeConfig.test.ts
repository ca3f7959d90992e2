import { describe, expect, it } from '@jest/globals';
import { KubeConfigError } from './KubeConfigError.js';
import { parseKubeConfig, parseKubeConfigText } from './parseKubeConfig.js';

const origin = { source: '/home/me/.kube/config', baseDir: '/home/me/.kube' };

const FULL = `
apiVersion: v1
kind: Config
current-context: dev
clusters:
- name: prod
  cluster:
    server: https://prod.example:6443
    certificate-authority: certs/ca.crt
    tls-server-name: api.prod
- name: dev
  cluster:
    server: https://127.0.0.1:6443
    certificate-authority-data: Q0E=
    insecure-skip-tls-verify: true
    proxy-url: http://proxy:3128
users:
- name: alice
  user:
    client-certificate: /abs/alice.crt
    client-key: alice.key
    tokenFile: ../token
- name: bob
  user:
    username: bob
    password: secret
- name: sso
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      command: ./bin/cred
      args: [get-token, --cluster, dev]
      env: [{ name: REGION, value: eu }]
      provideClusterInfo: true
      installHint: install cred
- name: legacy
  user:
    auth-provider: { name: oidc, config: { idp-issuer-url: https://idp } }
contexts:
- name: dev
  context: { cluster: dev, user: alice, namespace: team }
`;

describe('parseKubeConfigText', () => {
  it('reads clusters, users, contexts and the current context, resolving relative paths against the file directory', () => {
    const data = parseKubeConfigText(FULL, origin);
    expect(data.currentContext).toBe('dev');
    expect(data.clusters).toEqual([
      {
        name: 'prod',
        server: 'https://prod.example:6443',
        certificateAuthority: '/home/me/.kube/certs/ca.crt',
        insecureSkipTlsVerify: false,
        tlsServerName: 'api.prod',
      },
      {
        name: 'dev',
        server: 'https://127.0.0.1:6443',
        certificateAuthorityData: 'Q0E=',
        insecureSkipTlsVerify: true,
        proxyUrl: 'http://proxy:3128',
      },
    ]);
    expect(data.users).toEqual([
      { name: 'alice', clientCertificate: '/abs/alice.crt', clientKey: '/home/me/.kube/alice.key', tokenFile: '/home/me/token' },
      { name: 'bob', username: 'bob', password: 'secret' },
      {
        name: 'sso',
        exec: {
          apiVersion: 'client.authentication.k8s.io/v1beta1',
          command: '/home/me/.kube/bin/cred',
          args: ['get-token', '--cluster', 'dev'],
          env: [{ name: 'REGION', value: 'eu' }],
          interactiveMode: 'IfAvailable',
          installHint: 'install cred',
          provideClusterInfo: true,
        },
      },
      { name: 'legacy', authProvider: { name: 'oidc' } },
    ]);
    expect(data.contexts).toEqual([{ name: 'dev', cluster: 'dev', user: 'alice', namespace: 'team' }]);
  });

  it('reads JSON the same as YAML', () => {
    const json = JSON.stringify({
      clusters: [{ name: 'c', cluster: { server: 'https://c' } }],
      users: [{ name: 'u', user: { token: 't' } }],
      contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
      'current-context': 'x',
    });
    expect(parseKubeConfigText(json, origin)).toEqual(
      parseKubeConfigText(
        'clusters: [{name: c, cluster: {server: "https://c"}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x',
        origin,
      ),
    );
  });

  it('keeps a bare exec command for the PATH lookup', () => {
    const data = parseKubeConfig(
      {
        users: [{ name: 'u', user: { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: 'aws', interactiveMode: 'Never' } } }],
      },
      origin,
    );
    expect(data.users[0]?.exec?.command).toBe('aws');
  });

  it('reads an empty document as an empty config', () => {
    expect(parseKubeConfigText('', origin)).toEqual({ clusters: [], users: [], contexts: [] });
    expect(parseKubeConfigText('# nothing yet\n\n', origin)).toEqual({ clusters: [], users: [], contexts: [] });
  });

  it.each([
    ['clusters: [{name: c, cluster: {}}]', 'clusters["c"] has no server'],
    ['clusters: [{cluster: {server: x}}]', 'clusters[0] has no name'],
    [
      'clusters: [{name: c, cluster: {server: x, insecure-skip-tls-verify: "yes"}}]',
      'clusters["c"].insecure-skip-tls-verify is not true or false',
    ],
    ['users: [{name: u, user: {token: 42}}]', 'users["u"].token is not a string'],
    ['users: {name: u}', 'the document.users is not a list'],
    [
      'users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1alpha1, command: x}}}]',
      'users["u"].exec.apiVersion "client.authentication.k8s.io/v1alpha1" is not client.authentication.k8s.io/v1 or v1beta1',
    ],
    [
      'users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: x}}}]',
      'users["u"].exec.interactiveMode is required with client.authentication.k8s.io/v1 (Never, IfAvailable or Always)',
    ],
    ['users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1beta1}}}]', 'users["u"].exec has no command'],
    ['[1, 2]', 'the document is not a mapping'],
  ])('refuses %s, naming the entry and field', (text, detail) => {
    let caught: unknown;
    try {
      parseKubeConfigText(text, origin);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(KubeConfigError);
    expect(caught).toMatchObject({
      name: 'KubeConfigError',
      reason: 'Invalid',
      source: origin.source,
      message: `${origin.source}: ${detail}`,
    });
  });

  it('names the file when the text is not YAML, with the parser error as cause', () => {
    let caught: unknown;
    try {
      parseKubeConfigText('clusters: [unclosed', origin);
    } catch (err) {
      caught = err;
    }
    expect(caught).toMatchObject({
      reason: 'Invalid',
      message: expect.stringContaining('/home/me/.kube/config: not a YAML or JSON KubeConfig'),
    });
    expect((caught as Error).cause).toBeInstanceOf(Error);
  });
});
