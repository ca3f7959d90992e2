import { KubeConfig } from '@kubernetes/client-node';

const b64 = (pem: string): string => Buffer.from(pem, 'utf8').toString('base64');

/**
 * A KubeConfig with one cluster (`server`, trusting `caPem`), one
 * client-certificate user and a current context using both.
 */
export function buildKubeConfig(server: string, caPem: string, user: string, certPem: string, keyPem: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'protean-kube', server, caData: b64(caPem), skipTLSVerify: false }],
    users: [{ name: user, certData: b64(certPem), keyData: b64(keyPem) }],
    contexts: [{ name: 'protean-kube', cluster: 'protean-kube', user, namespace: 'default' }],
    currentContext: 'protean-kube',
  });
  return kc;
}
