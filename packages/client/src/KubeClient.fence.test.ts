import { describe, expect, it } from '@jest/globals';
import { LeaseExpiredError, type GroupVersionResource, type Validity } from '@protean/core';
import { fenceSignal } from '@protean/core/internal';
import { KubeClient } from './KubeClient.js';
import type { KubeHttpRequest, KubeHttpResponse, KubeTransport } from './KubeTransport.js';

const configmaps: GroupVersionResource = { group: '', version: 'v1', resource: 'configmaps' };
const OK: KubeHttpResponse = {
  status: 200,
  headers: {},
  body: JSON.stringify({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'a', namespace: 'default' } }),
};

class RecordingTransport implements KubeTransport {
  readonly sent: KubeHttpRequest[] = [];
  send(request: KubeHttpRequest): Promise<KubeHttpResponse> {
    this.sent.push(request);
    return Promise.resolve(OK);
  }
}

/** A lease whose validity a test ends by hand (a freeze past the renew deadline, as the process finds it on waking). */
class ManualValidity implements Validity {
  valid = true;
  readonly description = 'leadership of lease ctl/webapp';
  isValid(): boolean {
    return this.valid;
  }
}

describe('KubeClient writes made with a pass signal tied to a lease', () => {
  it('refuses a write once the lease is no longer valid, sends nothing, and aborts the pass signal at once', async () => {
    const transport = new RecordingTransport();
    const client = new KubeClient({ transport, fieldManager: 'test' });
    const validity = new ManualValidity();
    const signal = fenceSignal(new AbortController(), validity);
    await client.get(configmaps, { namespace: 'default', name: 'a' }, { signal });
    validity.valid = false;
    // Reads still go out (they change nothing); the write after the read is refused before it is sent.
    await client.get(configmaps, { namespace: 'default', name: 'a' }, { signal: fenceSignal(new AbortController(), validity) });
    const err = await client
      .patch(configmaps, { namespace: 'default', name: 'a' }, { data: { k: 'stale' } }, { signal })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LeaseExpiredError);
    expect((err as Error).message).toBe(
      'PATCH configmaps default/a not sent: leadership of lease ctl/webapp is no longer valid (past its renew deadline)',
    );
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe(err);
    expect(transport.sent.map((r) => r.method)).toEqual(['GET', 'GET']);
  });

  it('sends writes as before with a signal no lease is tied to', async () => {
    const transport = new RecordingTransport();
    const client = new KubeClient({ transport, fieldManager: 'test' });
    await client.patch(configmaps, { namespace: 'default', name: 'a' }, { data: { k: 'v' } }, { signal: new AbortController().signal });
    expect(transport.sent.map((r) => r.method)).toEqual(['PATCH']);
  });

  it('checks again right before the transport hands the write over: a lease that ends while connecting sends nothing', async () => {
    const validity = new ManualValidity();
    const handedOver: KubeHttpRequest[] = [];
    // A transport that, like the connection pool, spends a turn on credentials and connecting, then calls beforeSend.
    const transport: KubeTransport = {
      async send(request) {
        await Promise.resolve();
        validity.valid = false; // the process froze here, past its renew deadline
        request.beforeSend?.();
        handedOver.push(request);
        return OK;
      },
    };
    const client = new KubeClient({ transport, fieldManager: 'test' });
    const signal = fenceSignal(new AbortController(), validity);
    const err = await client
      .patch(configmaps, { namespace: 'default', name: 'a' }, { data: { k: 'stale' } }, { signal })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LeaseExpiredError);
    expect(handedOver).toEqual([]);
    expect(signal.reason).toBe(err);
  });
});
