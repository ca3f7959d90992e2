import type { KubeConfigData } from './kubeConfigData.js';

/**
 * Merges KubeConfigs as kubectl merges the files of `KUBECONFIG`: the first
 * file that names a cluster, user or context wins for that name (entries
 * are not merged field by field), and the first file that sets a
 * `current-context` wins.
 */
export function mergeKubeConfigs(configs: readonly KubeConfigData[]): KubeConfigData {
  const firstByName = <T extends { readonly name: string }>(lists: readonly (readonly T[])[]): T[] => {
    const seen = new Map<string, T>();
    for (const list of lists) for (const entry of list) if (!seen.has(entry.name)) seen.set(entry.name, entry);
    return [...seen.values()];
  };
  const currentContext = configs.find((c) => c.currentContext !== undefined)?.currentContext;
  return {
    clusters: firstByName(configs.map((c) => c.clusters)),
    users: firstByName(configs.map((c) => c.users)),
    contexts: firstByName(configs.map((c) => c.contexts)),
    ...(currentContext === undefined ? {} : { currentContext }),
  };
}
