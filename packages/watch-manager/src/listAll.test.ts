import { describe, expect, it } from '@jest/globals';
import { silentLogger, type PartialObjectMetadata } from '@protean/core';
import { KubernetesRequestError } from './KubernetesRequestError.js';
import type { DecodedListPage } from './decodeListPage.js';
import { listAll } from './listAll.js';
import { MetadataStore } from './MetadataStore.js';
import { trimMetadata } from './trimMetadata.js';

const gvr = { group: '', version: 'v1', resource: 'configmaps' };
const item = (name: string) => ({ metadata: { name, namespace: 'ns', resourceVersion: '1', managedFields: [{}] } });

/** A server of `total` items in pages, recording the queries it got; `fail` may throw for a query. */
function pager(total: number, fail?: (q: URLSearchParams, call: number) => Error | undefined) {
  const queries: URLSearchParams[] = [];
  const fetchPage = async (q: URLSearchParams): Promise<DecodedListPage> => {
    queries.push(q);
    const err = fail?.(q, queries.length);
    if (err !== undefined) throw err;
    const start = Number(q.get('continue') ?? '0');
    const limit = Number(q.get('limit') ?? '0') || total;
    const end = Math.min(total, start + limit);
    const items = Array.from({ length: end - start }, (_, i) => trimMetadata(item(`o-${start + i}`))!);
    return { items, metadata: end < total ? { resourceVersion: '77', continue: String(end) } : { resourceVersion: '77' } };
  };
  return { fetchPage, queries };
}

/** A list target collecting into a store, counting restarts. */
function collect() {
  const store = new MetadataStore();
  let begins = 0;
  return {
    store,
    begins: () => begins,
    begin: () => {
      begins++;
      for (const o of store.list()) store.delete(o.metadata.namespace ?? '', o.metadata.name);
    },
    add: (o: PartialObjectMetadata) => void store.set(o),
  };
}

describe('listAll', () => {
  it('pages with limit and continue, asking for the resourceVersion on the first page only', async () => {
    const { fetchPage, queries } = pager(1200);
    const target = collect();
    const r = await listAll(fetchPage, '0', 500, silentLogger(), target);
    expect(target.store.size).toBe(1200);
    expect(r.pages).toBe(3);
    expect(r.resourceVersion).toBe('77');
    expect(queries.map((q) => q.toString())).toEqual(['limit=500&resourceVersion=0', 'limit=500&continue=500', 'limit=500&continue=1000']);
    expect(target.store.get('ns', 'o-0')?.metadata).not.toHaveProperty('managedFields');
  });

  it('starts over from the most recent version when a continue token expires', async () => {
    const expired = KubernetesRequestError.fromResponse(gvr, 'LIST', 410, undefined, '{"code":410,"reason":"Expired"}');
    const { fetchPage, queries } = pager(1200, (q, call) => (call === 2 && q.has('continue') ? expired : undefined));
    const target = collect();
    await listAll(fetchPage, '0', 500, silentLogger(), target);
    expect(target.store.size).toBe(1200);
    expect(target.begins()).toBe(2);
    expect(queries[2]!.toString()).toBe('limit=500');
  });

  it('passes other failures on', async () => {
    const boom = new Error('boom');
    const { fetchPage } = pager(10, () => boom);
    await expect(listAll(fetchPage, '', 500, silentLogger(), collect())).rejects.toBe(boom);
  });
});
