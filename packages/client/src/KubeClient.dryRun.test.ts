import { describe, expect, it } from '@jest/globals';
import type { GroupVersionResource } from '@protean/core';
import { KubeClient } from './KubeClient.js';
import type { KubeHttpRequest, KubeHttpResponse, KubeTransport } from './KubeTransport.js';

const configmaps: GroupVersionResource = { group: '', version: 'v1', resource: 'configmaps' };
const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'default' } };

/** Answers every request with the ConfigMap and records the request lines. */
class RecordingTransport implements KubeTransport {
  readonly lines: string[] = [];
  send(request: KubeHttpRequest): Promise<KubeHttpResponse> {
    this.lines.push(`${request.method} ${request.path}`);
    return Promise.resolve({ status: 200, headers: {}, body: JSON.stringify(cm) });
  }
}

describe('KubeClient dryRun and fieldValidation', () => {
  it('sends dryRun=All on every write made with dryRun: true, and on none without it', async () => {
    const transport = new RecordingTransport();
    const client = new KubeClient({ transport, fieldManager: 'ctl' });
    const key = { namespace: 'default', name: 'a' };
    await client.create(configmaps, cm, { dryRun: true });
    await client.update(configmaps, cm, { dryRun: true });
    await client.patch(configmaps, key, { data: {} }, { dryRun: true });
    await client.patchStatus(configmaps, key, {}, { dryRun: true });
    await client.apply(configmaps, cm, { dryRun: true, force: true });
    await client.delete(configmaps, key, { dryRun: true });
    await client.create(configmaps, cm);
    await client.apply(configmaps, cm);
    await client.delete(configmaps, key);
    await client.create(configmaps, cm, { dryRun: true, fieldValidation: 'Strict' });
    await client.apply(configmaps, cm, { fieldValidation: 'Ignore' });
    expect(transport.lines).toEqual([
      'POST /api/v1/namespaces/default/configmaps?fieldManager=ctl&dryRun=All',
      'PUT /api/v1/namespaces/default/configmaps/a?fieldManager=ctl&dryRun=All',
      'PATCH /api/v1/namespaces/default/configmaps/a?fieldManager=ctl&dryRun=All',
      'PATCH /api/v1/namespaces/default/configmaps/a/status?fieldManager=ctl&dryRun=All',
      'PATCH /api/v1/namespaces/default/configmaps/a?fieldManager=ctl&force=true&dryRun=All',
      'DELETE /api/v1/namespaces/default/configmaps/a?dryRun=All',
      'POST /api/v1/namespaces/default/configmaps?fieldManager=ctl',
      'PATCH /api/v1/namespaces/default/configmaps/a?fieldManager=ctl',
      'DELETE /api/v1/namespaces/default/configmaps/a',
      'POST /api/v1/namespaces/default/configmaps?fieldManager=ctl&dryRun=All&fieldValidation=Strict',
      'PATCH /api/v1/namespaces/default/configmaps/a?fieldManager=ctl&fieldValidation=Ignore',
    ]);
  });
});
