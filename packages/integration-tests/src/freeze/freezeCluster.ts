// The cluster side of the freeze test: the objects it seeds on
// kube-apiserver (a parent CRD, parents in 8 namespaces, a child
// ConfigMap per parent), the audit policy that records every ConfigMap
// write, and the writer that changes every parent about once a second.
import type { KubeConfig } from '@kubernetes/client-node';
import { waitFor } from '@protean/core/testing';
import { kubeRequest } from '@protean/envtest';
import { CHILD_SUFFIX, PARENTS } from '../sharding/shardAudit.js';

export const LEASE_NAMESPACE = 'freeze-system';
export const NAMESPACES = Array.from({ length: 8 }, (_, i) => `freeze-${i}`);
export const PARENT_KEYS = NAMESPACES.flatMap((ns) => Array.from({ length: 4 }, (_, i) => `${ns}/p-${i}`));
export const CHILD_LABEL = 'freeze-child';
// Only configmap writes are audited, at Metadata level: enough for who (user agent), when and the answer.
export const AUDIT_POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
  - level: Metadata
    verbs: ["create", "update", "patch"]
    resources: [{ group: "", resources: ["configmaps"] }]
  - level: None
`;

/** Epoch ms, as the replicas log them. */
export const now = (): number => performance.timeOrigin + performance.now();
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function created(kc: KubeConfig, path: string, body: unknown): Promise<void> {
  const r = await kubeRequest(kc, 'POST', path, { body });
  if (r.status !== 201) throw new Error(`POST ${path}: ${r.status} ${r.text.slice(0, 200)}`);
}

export async function seed(kc: KubeConfig): Promise<void> {
  await created(kc, '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
    metadata: { name: `${PARENTS.resource}.${PARENTS.group}` },
    spec: {
      group: PARENTS.group,
      scope: 'Namespaced',
      names: { plural: PARENTS.resource, singular: 'shardparent', kind: 'ShardParent', listKind: 'ShardParentList' },
      versions: [
        {
          name: PARENTS.version,
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        },
      ],
    },
  });
  const parents = `/apis/${PARENTS.group}/${PARENTS.version}`;
  await waitFor(async () => (await kubeRequest(kc, 'GET', `${parents}/${PARENTS.resource}?limit=1`)).status === 200, {
    timeoutMs: 30_000,
    intervalMs: 100,
    message: 'the parent CRD served',
  });
  for (const ns of [LEASE_NAMESPACE, ...NAMESPACES]) await created(kc, '/api/v1/namespaces', { metadata: { name: ns } });
  for (const key of PARENT_KEYS) {
    const [ns, name] = key.split('/') as [string, string];
    await created(kc, `/api/v1/namespaces/${ns}/configmaps`, {
      metadata: { name: `${name}${CHILD_SUFFIX}`, labels: { [CHILD_LABEL]: 'true' } },
      data: { value: '0' },
    });
    await created(kc, `${parents}/namespaces/${ns}/${PARENTS.resource}`, {
      apiVersion: `${PARENTS.group}/${PARENTS.version}`,
      kind: 'ShardParent',
      metadata: { name },
      spec: { touch: 0 },
    });
  }
}

/** Touches every parent with 1, 2, 3 ... (about one round a second) until stopped; records each acknowledged touch. */
export function startWriter(kc: KubeConfig, touches: { key: string; value: number; at: number }[]): { stop: () => Promise<number> } {
  let stopped = false;
  let value = 0;
  const loop = (async () => {
    while (!stopped) {
      const round = now();
      value++;
      for (let i = 0; i < PARENT_KEYS.length; i += 4) {
        await Promise.all(
          PARENT_KEYS.slice(i, i + 4).map(async (key) => {
            const [ns, name] = key.split('/') as [string, string];
            const r = await kubeRequest(
              kc,
              'PATCH',
              `/apis/${PARENTS.group}/${PARENTS.version}/namespaces/${ns}/${PARENTS.resource}/${name}`,
              {
                body: { spec: { touch: value } },
                contentType: 'application/merge-patch+json',
              },
            );
            if (r.status !== 200) throw new Error(`touching ${key}: ${r.status} ${r.text.slice(0, 200)}`);
            touches.push({ key, value, at: now() });
          }),
        );
      }
      await sleep(Math.max(0, 1_000 - (now() - round)));
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await loop;
      return value;
    },
  };
}
