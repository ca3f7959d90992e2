import { describe, expect, it } from '@jest/globals';
import type { Validity } from '../contracts/index.js';
import { assertStillValid } from '../fence.js';
import { gvrKey, type GroupVersionResource, type ObjectIdentifiers } from '../gvr.js';
import type { Handler } from '../handler.js';
import { LeaseExpiredError } from '../LeaseExpiredError.js';
import {
  FakeClock,
  FakeWatchCoordinator,
  FakeWatchManager,
  FakeWorkQueue,
  LogRecorder,
  ObserverRecorder,
  waitFor,
} from '../testing/index.js';
import { WorkerPool, type ParentHandler } from './WorkerPool.js';
import { workItemKey } from './workItemKey.js';

const webapps: GroupVersionResource = { group: 'demo.protean.dev', version: 'v1', resource: 'webapps' };
const item = (name: string): ObjectIdentifiers => ({ gvr: webapps, namespace: 'ns', name });

class ManualValidity implements Validity {
  valid = true;
  readonly description = 'leadership of lease ctl/webapp';
  isValid(): boolean {
    return this.valid;
  }
}

async function startPool(handler: Handler, validity: Validity) {
  const clock = new FakeClock();
  const queue = new FakeWorkQueue<ObjectIdentifiers>({ key: workItemKey, clock, limits: { minRetryDelayMs: 100, maxRetryDelayMs: 1_000 } });
  const watchManager = new FakeWatchManager();
  await watchManager.ensureWatch(webapps, 'parent');
  const observer = new ObserverRecorder();
  const parents = new Map<string, ParentHandler>([[gvrKey(webapps), { gvr: webapps, handler }]]);
  const pool = new WorkerPool({
    queue,
    queueMaxRetries: 3,
    parents,
    watchManager,
    watchCoordinator: new FakeWatchCoordinator(),
    signal: new AbortController().signal,
    clock,
    observer,
    logger: new LogRecorder('debug').logger,
  }).derive(queue, new AbortController().signal, validity);
  const running = pool.run(1);
  return { queue, observer, running };
}

describe('WorkerPool under a lease validity (a leader term)', () => {
  it('starts no pass once the lease is no longer valid, even before the term aborts', async () => {
    const validity = new ManualValidity();
    const ran: string[] = [];
    const p = await startPool(async (req) => void ran.push(req.name), validity);
    p.queue.add(item('a'));
    await waitFor(() => ran.length === 1 && p.queue.processing().length === 0, { message: 'a reconciled' });
    validity.valid = false;
    p.queue.add(item('b'));
    await waitFor(() => p.queue.len() === 0 && p.queue.processing().length === 0, { message: 'b taken and released' });
    expect(ran).toEqual(['a']);
    p.queue.shutdown();
    await p.running;
  });

  it('ties each pass signal to the lease: a check after it ended throws LeaseExpiredError and aborts ctx.signal at once', async () => {
    const validity = new ManualValidity();
    let seen: { thrown: unknown; aborted: boolean; reason: unknown } | undefined;
    const p = await startPool(async (_req, ctx) => {
      assertStillValid(ctx, 'PATCH configmaps ns/a');
      validity.valid = false; // the process froze past its renew deadline between the read and the write
      let thrown: unknown;
      try {
        assertStillValid(ctx, 'PATCH configmaps ns/a');
      } catch (err) {
        thrown = err;
      }
      seen = { thrown, aborted: ctx.signal.aborted, reason: ctx.signal.reason };
    }, validity);
    p.queue.add(item('a'));
    await waitFor(() => seen !== undefined, { message: 'the pass ran' });
    expect(seen?.thrown).toBeInstanceOf(LeaseExpiredError);
    expect((seen?.thrown as Error).message).toBe(
      'PATCH configmaps ns/a not sent: leadership of lease ctl/webapp is no longer valid (past its renew deadline)',
    );
    expect(seen?.aborted).toBe(true);
    expect(seen?.reason).toBe(seen?.thrown);
    p.queue.shutdown();
    await p.running;
  });
});
