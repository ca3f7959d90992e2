import { httpText } from './httpText.js';

const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');

async function post(etcdUrl: string, path: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await httpText(`${etcdUrl}${path}`, { method: 'POST', body: JSON.stringify(body) });
  const json = JSON.parse(res.body || '{}') as Record<string, unknown>;
  if (res.status !== 200 && !(typeof json['message'] === 'string' && json['message'].includes('compacted'))) {
    throw new Error(`etcd POST ${path} answered ${res.status}: ${res.body}`);
  }
  return json;
}

/**
 * Compacts etcd (through its JSON gateway) at its current revision and
 * stores that revision under `compact_rev_key`, which kube-apiserver reads
 * to learn about compactions it did not make. Returns the revision.
 *
 * Easy to get wrong: the `compact_rev_key` write itself creates a new
 * revision, so the returned one is already not the newest.
 */
export async function etcdCompact(etcdUrl: string): Promise<number> {
  // "AA==" is the key "\0": any range answers with the current revision.
  const range = await post(etcdUrl, '/v3/kv/range', { key: 'AA==', limit: 1 });
  const rev = (range['header'] as { revision?: string } | undefined)?.revision;
  if (rev === undefined) throw new Error(`etcd range answered without header.revision: ${JSON.stringify(range)}`);
  // Already compacted at this revision (nothing written since) is fine.
  await post(etcdUrl, '/v3/kv/compaction', { revision: rev, physical: true });
  await post(etcdUrl, '/v3/kv/put', { key: b64('compact_rev_key'), value: b64(rev) });
  return Number(rev);
}
