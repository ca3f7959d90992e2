import { chmod, writeFile } from 'node:fs/promises';
import { KubeConfig } from '@kubernetes/client-node';
import { parseStatusBody } from '@protean/core/internal';
import { kubeRequest } from './kubeHttp.js';
import { ServiceAccountNotFoundError } from './ServiceAccountNotFoundError.js';
import { TokenRequestError } from './TokenRequestError.js';

/** Options of {@link serviceAccountKubeConfig}. */
export interface ServiceAccountKubeConfigOptions {
  /** The ServiceAccount's namespace; also the KubeConfig context's namespace. */
  namespace: string;
  /** The ServiceAccount's name. */
  name: string;
  /** The token's lifetime; the server refuses less than 600. Default 3600. */
  expirationSeconds?: number;
  /** Audiences of the token; default the server's (`--api-audiences`, else its issuer), which it accepts. */
  audiences?: readonly string[];
}

/** The ServiceAccount's user name as the API server authenticates it. */
export function serviceAccountUser(namespace: string, name: string): string {
  return `system:serviceaccount:${namespace}:${name}`;
}

/**
 * A KubeConfig that authenticates as the ServiceAccount `namespace/name`:
 * a bearer token from the TokenRequest API
 * (`POST /api/v1/namespaces/<ns>/serviceaccounts/<name>/token`, sent with
 * `adminKubeConfig`), the cluster's URL and CA taken from `adminKubeConfig`,
 * and nothing else of the admin's credentials. What the ServiceAccount may
 * do is what RBAC grants it: with no bindings, almost every request is a 403.
 *
 * Easy to get wrong: the token is bound to the ServiceAccount object;
 * deleting and recreating the ServiceAccount makes it answer 401. A missing
 * ServiceAccount rejects with {@link ServiceAccountNotFoundError}, any other
 * refusal with {@link TokenRequestError}.
 */
export async function serviceAccountKubeConfig(adminKubeConfig: KubeConfig, options: ServiceAccountKubeConfigOptions): Promise<KubeConfig> {
  const { namespace, name } = options;
  const cluster = adminKubeConfig.getCurrentCluster();
  if (cluster === null) throw new TypeError('serviceAccountKubeConfig: the admin KubeConfig has no current cluster');
  const spec: Record<string, unknown> = { expirationSeconds: options.expirationSeconds ?? 3600 };
  if (options.audiences !== undefined) spec['audiences'] = [...options.audiences];
  const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}/serviceaccounts/${encodeURIComponent(name)}/token`;
  const r = await kubeRequest(adminKubeConfig, 'POST', path, {
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec },
  });
  if (r.status === 404) throw new ServiceAccountNotFoundError(namespace, name, { path, body: parseStatusBody(r.text) });
  const token = (r.json['status'] as { token?: unknown } | undefined)?.token;
  if (r.status !== 201 || typeof token !== 'string' || token === '') {
    throw new TokenRequestError(
      namespace,
      name,
      r.status,
      typeof r.json['message'] === 'string' ? r.json['message'] : r.text.slice(0, 500),
      { path, body: parseStatusBody(r.text) },
    );
  }
  const user = serviceAccountUser(namespace, name);
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [
      {
        name: cluster.name,
        server: cluster.server,
        skipTLSVerify: cluster.skipTLSVerify,
        ...(cluster.caData === undefined ? {} : { caData: cluster.caData }),
        ...(cluster.caFile === undefined ? {} : { caFile: cluster.caFile }),
        ...(cluster.tlsServerName === undefined ? {} : { tlsServerName: cluster.tlsServerName }),
      },
    ],
    users: [{ name: user, token }],
    contexts: [{ name: user, cluster: cluster.name, user, namespace }],
    currentContext: user,
  });
  return kc;
}

/**
 * Writes `kubeConfig` as a kubeconfig YAML file readable by its owner only
 * (0600), for a child process's `KUBECONFIG`; resolves to `path`.
 */
export async function writeKubeConfigFile(kubeConfig: KubeConfig, path: string): Promise<string> {
  await writeFile(path, kubeConfig.exportConfig(), { mode: 0o600 });
  await chmod(path, 0o600); // an existing file keeps its mode otherwise
  return path;
}
