// The ConfigMap the memory benchmark caches: 3 labels, 2 annotations, 1 KiB
// of data, in one of ten namespaces. Both the in-memory API server (the Node
// informers) and the real kube-apiserver (client-go) are filled with it.
const PAYLOAD = 'x'.repeat(1024);
export const NAMESPACES = Array.from({ length: 10 }, (_, i) => `ns-${i}`);

export function configMap(i) {
  return {
    metadata: {
      name: `bench-${String(i).padStart(6, '0')}`,
      namespace: NAMESPACES[i % NAMESPACES.length],
      labels: { app: 'bench', tier: i % 2 === 0 ? 'web' : 'api', shard: String(i % 16) },
      annotations: { 'bench.protean.dev/owner': `team-${i % 5}`, 'bench.protean.dev/note': 'created by the memory benchmark' },
    },
    data: { payload: PAYLOAD },
  };
}
