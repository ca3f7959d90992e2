import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { KubeConfigError } from './KubeConfigError.js';
import type { KubeConfigData } from './kubeConfigData.js';
import { mergeKubeConfigs } from './mergeKubeConfigs.js';
import { parseKubeConfigText } from './parseKubeConfig.js';

/** Where the default loader looks; each defaults to this process's. */
export interface KubeConfigEnvironment {
  /** `KUBECONFIG`, `KUBERNETES_SERVICE_HOST` and `KUBERNETES_SERVICE_PORT` are read from here (default `process.env`). */
  readonly env?: NodeJS.ProcessEnv;
  /** For `~/.kube/config` (default `os.homedir()`). */
  readonly homeDir?: string;
  /** The mounted service account (default `/var/run/secrets/kubernetes.io/serviceaccount`). */
  readonly serviceAccountDir?: string;
}

/** Where Kubernetes mounts a pod's service account token, CA and namespace. */
export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/** The name of the cluster, user and context of an in-cluster config. */
export const IN_CLUSTER = 'in-cluster';

/** One KubeConfig file, its relative paths resolved against its directory. */
export function loadKubeConfigFile(path: string): KubeConfigData {
  const absolute = resolve(path);
  let text: string;
  try {
    text = readFileSync(absolute, 'utf8');
  } catch (err) {
    throw new KubeConfigError('ReadFailed', absolute, `cannot read the KubeConfig: ${(err as Error).message}`, err);
  }
  return parseKubeConfigText(text, { source: absolute, baseDir: dirname(absolute) });
}

/**
 * The config a pod's service account gives: the API server at
 * `KUBERNETES_SERVICE_HOST`:`KUBERNETES_SERVICE_PORT`, the mounted `ca.crt`,
 * the mounted `token` as a token file (re-read as the kubelet rotates it)
 * and the mounted `namespace` as the context's namespace.
 */
export function inClusterKubeConfig(environment: KubeConfigEnvironment = {}): KubeConfigData {
  const env = environment.env ?? process.env;
  const dir = environment.serviceAccountDir ?? SERVICE_ACCOUNT_DIR;
  const host = env['KUBERNETES_SERVICE_HOST'];
  const port = env['KUBERNETES_SERVICE_PORT'];
  if (host === undefined || host === '' || port === undefined || port === '') {
    throw new KubeConfigError(
      'NotFound',
      IN_CLUSTER,
      'KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set: not running in a pod',
    );
  }
  const tokenFile = join(dir, 'token');
  if (!existsSync(tokenFile)) throw new KubeConfigError('NotFound', IN_CLUSTER, `no service account token at ${tokenFile}`);
  let namespace: string | undefined;
  try {
    namespace = readFileSync(join(dir, 'namespace'), 'utf8').trim();
  } catch {
    namespace = undefined;
  }
  const caFile = join(dir, 'ca.crt');
  return {
    clusters: [
      {
        name: IN_CLUSTER,
        server: `https://${host.includes(':') ? `[${host}]` : host}:${port}`,
        insecureSkipTlsVerify: false,
        ...(existsSync(caFile) ? { certificateAuthority: caFile } : {}),
      },
    ],
    users: [{ name: IN_CLUSTER, tokenFile }],
    contexts: [{ name: IN_CLUSTER, cluster: IN_CLUSTER, user: IN_CLUSTER, ...(namespace ? { namespace } : {}) }],
    currentContext: IN_CLUSTER,
  };
}

/**
 * What `kubectl` and client-node's `loadFromDefault()` load: the files in
 * `KUBECONFIG` (separated by `path.delimiter`, missing ones skipped, merged
 * first-wins), else `~/.kube/config`, else the in-cluster service account.
 * Throws a {@link KubeConfigError} (`NotFound`) naming every place it looked.
 */
export function loadDefaultKubeConfigData(environment: KubeConfigEnvironment = {}): KubeConfigData {
  const env = environment.env ?? process.env;
  const list = env['KUBECONFIG'];
  if (list !== undefined && list !== '') {
    const files = list.split(delimiter).filter((f) => f !== '' && existsSync(f));
    if (files.length === 0) throw new KubeConfigError('NotFound', 'KUBECONFIG', `none of the files in KUBECONFIG=${list} exists`);
    return mergeKubeConfigs(files.map(loadKubeConfigFile));
  }
  const home = join(environment.homeDir ?? homedir(), '.kube', 'config');
  if (existsSync(home)) return loadKubeConfigFile(home);
  try {
    return inClusterKubeConfig(environment);
  } catch (err) {
    throw new KubeConfigError(
      'NotFound',
      'KubeConfig',
      `no KubeConfig found: KUBECONFIG is not set, ${home} does not exist, and not in a pod (${(err as Error).message})`,
      err,
    );
  }
}
