import { KubeApiError, type KubeClient, type KubeObject } from '@protean/client';
import type { GroupVersionResource } from '@protean/core';
import type { KindDeclaration } from './defineKind.js';
import { KindNamesConflictError, KindNotEstablishedError, KindRejectedError } from './ensureKindErrors.js';

const CRDS: GroupVersionResource = { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' };

/** Options of {@link ensureKind}. */
export interface EnsureKindOptions {
  /** How long to wait for `Established` and the resource to be served. Default 30 000. */
  readonly timeoutMs?: number;
  /** The field manager of the CRD's apply. Default `protean-kinds`. */
  readonly fieldManager?: string;
  readonly signal?: AbortSignal;
  /** How often to look. Default 100. */
  readonly pollMs?: number;
}

interface Condition {
  readonly type?: string;
  readonly status?: string;
  readonly reason?: string;
  readonly message?: string;
}

/**
 * Installs (or updates) a declared kind at run time, as kro does with the
 * kinds it generates: applies its CRD by server-side apply (`force`, under
 * `fieldManager`), waits until the API server says `NamesAccepted` and
 * `Established` and serves the resource (a LIST answers), and resolves with
 * the GVR of the storage version, ready for `controller.register`. A
 * second version with a changed schema is applied the same way.
 *
 * Rejects with {@link KindRejectedError} when the server refuses the CRD
 * (a schema that is not structural), {@link KindNamesConflictError} when
 * its names clash with another CRD's, and {@link KindNotEstablishedError}
 * when it is not served within `timeoutMs`.
 */
export async function ensureKind(
  client: KubeClient,
  declaration: KindDeclaration,
  options: EnsureKindOptions = {},
): Promise<GroupVersionResource> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const pollMs = options.pollMs ?? 100;
  const signal = options.signal;
  const name = declaration.crdName;
  const deadline = performance.now() + timeoutMs;
  try {
    await client.apply(CRDS, declaration.crd() as unknown as KubeObject, {
      fieldManager: options.fieldManager ?? 'protean-kinds',
      force: true,
      signal,
    });
  } catch (err) {
    if (err instanceof KubeApiError && (err.status === 422 || err.status === 400)) {
      throw new KindRejectedError(name, `the API server refused CRD ${name}: ${err.message}`, { cause: err });
    }
    throw err;
  }
  let seen: readonly Condition[];
  const gvr = declaration.gvr();
  for (;;) {
    const crd = await client.get<KubeObject & { status?: { conditions?: Condition[] } }>(CRDS, { name }, { signal });
    seen = crd.status?.conditions ?? [];
    const names = seen.find((c) => c.type === 'NamesAccepted');
    if (names?.status === 'False') {
      throw new KindNamesConflictError(
        name,
        `CRD ${name}: its names were not accepted (${names.reason ?? 'no reason'}): ${names.message ?? ''}`,
      );
    }
    const established = seen.find((c) => c.type === 'Established')?.status === 'True';
    if (established && names?.status === 'True') {
      const served = await client.list(gvr, { pageSize: 1, signal }).then(
        () => true,
        (err: unknown) => {
          if (err instanceof KubeApiError && err.status === 404) return false;
          throw err;
        },
      );
      if (served) return gvr;
    }
    if (performance.now() >= deadline) {
      const shown = seen.map((c) => `${c.type}=${c.status}${c.reason === undefined ? '' : ` (${c.reason})`}`).join(', ') || 'none';
      throw new KindNotEstablishedError(
        name,
        `CRD ${name} was not established and served within ${timeoutMs} ms; its conditions: ${shown}`,
        timeoutMs,
      );
    }
    await sleep(Math.min(pollMs, Math.max(0, deadline - performance.now())), signal);
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(done, ms);
    function done(): void {
      signal?.removeEventListener('abort', aborted);
      resolve();
    }
    function aborted(): void {
      clearTimeout(timer);
      reject(signal!.reason as Error);
    }
    signal?.addEventListener('abort', aborted, { once: true });
  });
}
