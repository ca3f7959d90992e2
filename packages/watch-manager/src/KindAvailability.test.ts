import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { KindNotServedError, WatchForbiddenError, type GroupVersionResource } from '@protean/core';
import { track, waitFor } from '@protean/core/testing';
import { InMemoryApiServer, type NewKubeObject } from '@protean/in-memory-apiserver';
import { KindAvailability, type KindAvailabilityOptions } from './KindAvailability.js';

/*
 * When a refused kind may be available again, learnt from the cluster: the CRD watch of the in-memory API server
 * (real HTTP, real clock). The forbidden case needs RBAC, which only kube-apiserver has (the real tier).
 */

const GIZMOS: GroupVersionResource = { group: 'example.com', version: 'v1', resource: 'gizmos' };
const CRDS: GroupVersionResource = { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' };
const LONG = 60_000;

let server: InMemoryApiServer;
const aborts: AbortController[] = [];

beforeEach(async () => {
  server = await InMemoryApiServer.start();
});
afterEach(async () => {
  for (const a of aborts.splice(0)) a.abort();
  await server.stop();
});

function availability(options: KindAvailabilityOptions = {}): KindAvailability {
  return new KindAvailability({ kubeConfig: server.kubeConfig() }, { fallbackMs: LONG, crdFallbackMs: LONG, graceMs: 200, ...options });
}

function signal(): AbortSignal {
  const abort = new AbortController();
  aborts.push(abort);
  return abort.signal;
}

function gizmoCrd(): NewKubeObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'gizmos.example.com' },
    spec: {
      group: 'example.com',
      names: { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo', listKind: 'GizmoList' },
      scope: 'Namespaced',
      versions: [{ name: 'v1', served: true, storage: true }],
    },
  };
}

describe('KindAvailability', () => {
  it('ends the wait of a kind that is not served when its CRD is created, not before; the CRD watch stops once nobody waits', async () => {
    const kinds = availability();
    const waiting = track(kinds.whenAvailable(new KindNotServedError(GIZMOS), signal()));
    const other = track(kinds.whenAvailable(new KindNotServedError({ ...GIZMOS, resource: 'widgets' }), signal()));
    await waitFor(() => server.openWatchCount() === 1);
    expect(server.requests().filter((r) => r.path.includes('customresourcedefinitions'))).not.toHaveLength(0);
    await new Promise((r) => setTimeout(r, 200));
    expect(waiting.state).toBe('pending');

    server.create(CRDS, gizmoCrd());
    await waitFor(() => waiting.state === 'resolved', { timeoutMs: 2000 });
    expect(other.state).toBe('pending'); // another kind's CRD is not this one's

    aborts.splice(0).forEach((a) => a.abort());
    await waitFor(() => other.state === 'resolved');
    // No one waits: after the grace, the CRD watch ends.
    await waitFor(() => server.openWatchCount() === 0, { timeoutMs: 2000 });
  });

  it('tries again soon after the kind just changed (the server may serve it a moment after the event)', async () => {
    const kinds = availability();
    const first = kinds.whenAvailable(new KindNotServedError(GIZMOS), signal());
    await waitFor(() => server.openWatchCount() === 1);
    server.create(CRDS, gizmoCrd());
    await first;
    const again = track(kinds.whenAvailable(new KindNotServedError(GIZMOS), signal()));
    await waitFor(() => again.state === 'resolved', { timeoutMs: 1000 });
  });

  it('waits fallbackMs for a kind no CRD can serve (the core group), and for a forbidden verb it cannot ask about', async () => {
    const kinds = availability({ fallbackMs: 150 });
    const core = track(kinds.whenAvailable(new KindNotServedError({ group: '', version: 'v1', resource: 'gizmos' }), signal()));
    await new Promise((r) => setTimeout(r, 50));
    expect(core.state).toBe('pending');
    await waitFor(() => core.state === 'resolved', { timeoutMs: 1000 });
    expect(server.openWatchCount()).toBe(0);

    // The in-memory API server has no SelfSubjectAccessReview: the first answer says so, and the wait ends on the fallback.
    const forbidden = track(kinds.whenAvailable(new WatchForbiddenError(GIZMOS, 'watch', { namespace: 'n' }), signal()));
    await waitFor(() => forbidden.state === 'resolved', { timeoutMs: 1000 });
    const review = server.requests().find((r) => r.path.endsWith('/selfsubjectaccessreviews'));
    expect(review?.method).toBe('POST');
  });

  it('ends a wait when its signal aborts', async () => {
    const kinds = availability();
    const abort = new AbortController();
    const waiting = track(kinds.whenAvailable(new KindNotServedError(GIZMOS), abort.signal));
    abort.abort();
    await waitFor(() => waiting.state === 'resolved');
  });
});
