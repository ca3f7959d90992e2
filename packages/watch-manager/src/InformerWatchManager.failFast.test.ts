import { describe, expect, it } from '@jest/globals';
import { RequeueNeededAfter, silentLogger, WatchForbiddenError, type GroupVersionResource } from '@protean/core';
import { FakeClock, FakeInformerSource, FakeStatusError, flushMicrotasks, track } from '@protean/core/testing';
import { InformerWatchManager } from './InformerWatchManager.js';
import type { InformerWatchManagerOptions } from './InformerWatchManagerOptions.js';
import { KubernetesRequestError } from './KubernetesRequestError.js';
import { WatchError } from './WatchError.js';

const cms: GroupVersionResource = { group: '', version: 'v1', resource: 'configmaps' };
const SERVER = 'https://127.0.0.1:6443';

function socketError(code: string, message: string): KubernetesRequestError {
  const sys = Object.assign(new Error(message), { code });
  return new KubernetesRequestError(cms, 'WATCH', `request failed: ${message}`, { reason: 'NetworkError', server: SERVER, cause: sys });
}
const refused = (): KubernetesRequestError => socketError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:6443');
const wrongCa = (): KubernetesRequestError => socketError('UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'unable to verify the first certificate');
const reset = (): KubernetesRequestError => socketError('ECONNRESET', 'socket hang up');

function setup(options: InformerWatchManagerOptions = {}) {
  const clock = new FakeClock();
  const source = new FakeInformerSource({ autoSync: false });
  const wm = new InformerWatchManager(source, 0, () => {}, silentLogger(), { clock, ...options });
  return { clock, source, wm };
}

describe('InformerWatchManager fail fast on failures waiting will not fix', () => {
  it('rejects after failFastMs of refused connections with the server URL, the attempts and the socket error, with the last failure as cause', async () => {
    const { clock, source, wm } = setup({ failFastMs: 3000 });
    const p = track(wm.ensureWatch(cms, 'a'));
    const inf = source.informer()!;
    inf.reportWatchError(refused());
    await clock.advanceAsync(800);
    const last = refused();
    inf.reportWatchError(last);
    await clock.advanceAsync(2199);
    expect(p.state).toBe('pending');
    await clock.advanceAsync(1);
    expect(p.state).toBe('rejected');
    const err = p.error as WatchError;
    expect(err).toBeInstanceOf(WatchError);
    expect(err.reason).toBe('ConnectionRefused');
    expect(err.server).toBe(SERVER);
    expect(err.cause).toBe(last);
    expect(err.message).toBe(
      `watch of /v1/configmaps: the API server at ${SERVER} refused the connection on each of 2 attempts over 3000 ms before the informer synced: ` +
        "connect ECONNREFUSED 127.0.0.1:6443 (is the API server running, and is the server URL of the KubeConfig's cluster right?)",
    );
    expect(inf.isStopped()).toBe(true);
  });

  it('rejects a TLS verification failure as TlsVerificationFailed, naming the certificate error and the fix', async () => {
    const { clock, source, wm } = setup({ failFastMs: 3000 });
    const p = track(wm.ensureWatch(cms, 'a'));
    source.informer()!.reportWatchError(wrongCa());
    await clock.advanceAsync(1000);
    source.informer()!.reportWatchError(wrongCa());
    await clock.advanceAsync(2000);
    expect(p.state).toBe('rejected');
    const err = p.error as WatchError;
    expect(err.reason).toBe('TlsVerificationFailed');
    expect(err.message).toContain(`TLS verification of the API server at ${SERVER} failed`);
    expect(err.message).toContain('unable to verify the first certificate');
    expect(err.message).toContain('certificate-authority');
  });

  it('waits for the second attempt when the first failure alone has lasted failFastMs', async () => {
    const { clock, source, wm } = setup({ failFastMs: 3000 });
    const p = track(wm.ensureWatch(cms, 'a'));
    source.informer()!.reportWatchError(refused());
    await clock.advanceAsync(10_000);
    expect(p.state).toBe('pending');
    source.informer()!.reportWatchError(refused());
    await flushMicrotasks();
    expect(p.state).toBe('rejected');
    expect((p.error as WatchError).message).toContain('on each of 2 attempts over 10000 ms');
  });

  it('starts the run over after a failure of another kind (a reset, a 500), so transient failures wait for the sync deadline', async () => {
    const { clock, source, wm } = setup({ failFastMs: 3000, syncTimeoutMs: 30_000 });
    const p = track(wm.ensureWatch(cms, 'a'));
    const inf = source.informer()!;
    inf.reportWatchError(refused());
    await clock.advanceAsync(1000);
    inf.reportWatchError(reset());
    await clock.advanceAsync(1000);
    inf.reportWatchError(refused());
    await clock.advanceAsync(1000);
    inf.reportWatchError(new FakeStatusError(500, 'internal'));
    await clock.advanceAsync(1000);
    inf.reportWatchError(refused());
    await clock.advanceAsync(2500);
    expect(p.state).toBe('pending');
    // 6.5 s so far; the deadline is at 30 s.
    for (let i = 0; i < 24; i++) {
      inf.reportWatchError(reset());
      await clock.advanceAsync(1000);
    }
    expect(p.state).toBe('rejected');
    expect((p.error as WatchError).reason).toBe('SyncTimeout');
  });

  it('does not reject when the informer syncs before the run is due', async () => {
    const { clock, source, wm } = setup({ failFastMs: 3000 });
    const p = track(wm.ensureWatch(cms, 'a'));
    source.informer()!.reportWatchError(refused());
    await clock.advanceAsync(1000);
    source.informer()!.reportWatchError(refused());
    await clock.advanceAsync(500);
    source.informer()!.markSynced();
    await clock.advanceAsync(5000);
    expect(p.state).toBe('resolved');
  });

  it('waits for the sync deadline when failFastMs is Infinity', async () => {
    const { clock, source, wm } = setup({ failFastMs: Number.POSITIVE_INFINITY, syncTimeoutMs: 30_000 });
    const p = track(wm.ensureWatch(cms, 'a'));
    for (let i = 0; i < 29; i++) {
      source.informer()!.reportWatchError(refused());
      await clock.advanceAsync(1000);
    }
    expect(p.state).toBe('pending');
    await clock.advanceAsync(1000);
    expect((p.error as WatchError).reason).toBe('SyncTimeout');
  });

  it('turns the next caller away at once with the remembered cause', async () => {
    const { clock, source, wm } = setup({ failFastMs: 3000 });
    const p = track(wm.ensureWatch(cms, 'a'));
    source.informer()!.reportWatchError(refused());
    await clock.advanceAsync(1000);
    source.informer()!.reportWatchError(refused());
    await clock.advanceAsync(2000);
    expect(p.state).toBe('rejected');
    const again = await wm.ensureWatch(cms, 'b').catch((e: unknown) => e);
    expect((again as WatchError).reason).toBe('BackingOff');
    // The rest of the window as core's requeue signal (a pass failing on it runs again when it ends), then the failure.
    const whenOver = (again as WatchError).cause as RequeueNeededAfter;
    expect(whenOver).toBeInstanceOf(RequeueNeededAfter);
    expect(whenOver.delayMs).toBeGreaterThan(0);
    expect(whenOver.cause).toBe(p.error);
    expect(source.informers()).toHaveLength(1);
  });

  it('names the server URL and the refused verb in a 403 refusal', async () => {
    const { source, wm } = setup();
    const p = track(wm.ensureWatch(cms, 'a'));
    const forbidden = KubernetesRequestError.fromResponse(cms, 'WATCH', 403, undefined, '{"reason":"Forbidden","message":"nope"}', SERVER);
    source.informer()!.reportWatchError(forbidden);
    await flushMicrotasks();
    const err = p.error as WatchForbiddenError;
    expect(err).toBeInstanceOf(WatchForbiddenError);
    expect(err.reason).toBe('Forbidden');
    expect(err.verb).toBe('watch');
    expect(err.server).toBe(SERVER);
    expect(err.cause).toBe(forbidden);
  });

  it('refuses a negative failFastMs and a failFastMinAttempts below 1', () => {
    expect(() => setup({ failFastMs: -1 })).toThrow(/failFastMs must be >= 0, got -1/);
    expect(() => setup({ failFastMinAttempts: 0 })).toThrow(/failFastMinAttempts must be an integer >= 1, got 0/);
  });
});
