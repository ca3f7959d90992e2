import { describe, expect, it } from '@jest/globals';
import { nextStatus } from './webAppStatus.js';
import type { WebAppObject } from './WebAppObject.js';

const T0 = new Date('2030-01-01T00:00:00.000Z');
const T1 = new Date('2030-01-01T00:05:00.000Z');

function app(generation: number, status?: WebAppObject['status']): WebAppObject {
  const obj: WebAppObject = {
    apiVersion: 'demo.protean.dev/v1alpha1',
    kind: 'WebApp',
    metadata: { name: 'shop', namespace: 'ns', uid: 'u', generation },
  };
  if (status !== undefined) obj.status = status;
  return obj;
}

describe('nextStatus', () => {
  it('reports the count, the observed generation and a Ready=True condition', () => {
    expect(nextStatus(app(3), { ready: true, configMapCount: 2 }, T0)).toEqual({
      observedGeneration: 3,
      configMapCount: 2,
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          reason: 'Reconciled',
          message: '2 ConfigMap(s) labelled app=shop',
          observedGeneration: 3,
          lastTransitionTime: '2030-01-01T00:00:00Z',
        },
      ],
    });
  });

  it('returns undefined when the instance already has the status', () => {
    const first = nextStatus(app(1), { ready: true, configMapCount: 1 }, T0);
    expect(nextStatus(app(1, first), { ready: true, configMapCount: 1 }, T1)).toBeUndefined();
  });

  it('keeps lastTransitionTime while the condition status holds, and moves it when it flips', () => {
    const first = nextStatus(app(1), { ready: true, configMapCount: 1 }, T0);
    const same = nextStatus(app(2, first), { ready: true, configMapCount: 4 }, T1);
    expect(same?.conditions?.[0]).toMatchObject({ observedGeneration: 2, lastTransitionTime: '2030-01-01T00:00:00Z' });

    const flipped = nextStatus(app(3, same), { ready: false, reason: 'InvalidSpec', message: 'bad' }, T1);
    expect(flipped?.conditions?.[0]).toMatchObject({ status: 'False', reason: 'InvalidSpec', lastTransitionTime: '2030-01-01T00:05:00Z' });
    // A not-ready instance keeps its last count rather than claiming zero.
    expect(flipped?.configMapCount).toBe(4);
  });

  it('keeps conditions of other types', () => {
    const other = { type: 'Synced', status: 'True' as const, reason: 'Manual', message: '', lastTransitionTime: '2029-01-01T00:00:00Z' };
    const next = nextStatus(app(1, { conditions: [other] }), { ready: true, configMapCount: 1 }, T0);
    expect(next?.conditions?.map((c) => c.type)).toEqual(['Synced', 'Ready']);
  });
});
