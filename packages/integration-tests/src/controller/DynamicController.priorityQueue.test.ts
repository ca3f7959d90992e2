import 'reflect-metadata';
import { afterEach, describe, expect, it } from '@jest/globals';
import type { GroupVersionResource } from '@protean/core';
import { priorityQueueModule } from '@protean/queue';
import type { Container } from 'inversify';
import { createTestController, Deferred, HandlerRecorder, type TestController } from '@protean/testing';

const parent: GroupVersionResource = { group: 'demo.protean.dev', version: 'v1', resource: 'webapps' };
const BACKLOG = 10_000;

describe('DynamicController with priorityQueueModule', () => {
  let t: TestController;

  afterEach(async () => {
    await t.dispose();
  });

  async function editDuringInitialList(withPriority: boolean): Promise<{ editPass: number; depthByPriority: unknown }> {
    t = createTestController({
      logFailures: false,
      config: { workers: 1 },
      ...(withPriority ? { configure: (c: Container) => c.load(priorityQueueModule()) } : {}),
    });
    for (let i = 0; i < BACKLOG; i++) t.source.add(parent, { name: `web-${i}`, namespace: 'ns' });
    const gate = new Deferred();
    const h = new HandlerRecorder(async () => gate.promise);
    await t.start();
    await t.register(parent, h.handler);
    // The single worker is held by the first instance; the rest of the initial list is queued.
    await t.waitFor(() => h.count() === 1 && t.queue.len() === BACKLOG - 1);
    const depthByPriority = t.controller.status().queue.depthByPriority;
    t.source.update(parent, { name: `web-${BACKLOG - 1}`, namespace: 'ns', generation: 2 });
    h.impl = () => Promise.resolve();
    gate.resolve();
    // The edited instance was still queued, so its live add collapsed into it: one pass per instance.
    await t.waitFor(() => h.count() === BACKLOG && t.queue.len() === 0, { timeoutMs: 30_000 });
    return { editPass: h.keys().indexOf(`ns/web-${BACKLOG - 1}`), depthByPriority };
  }

  it('runs a live edit next, ahead of the 10,000 instances of the initial list still queued', async () => {
    const { editPass, depthByPriority } = await editDuringInitialList(true);
    // Pass 0 is the held one; the edited instance's live add moved it up from the back: it is pass 1.
    expect(editPass).toBe(1);
    expect(depthByPriority).toEqual({ high: 0, normal: 0, low: BACKLOG - 1 });
  }, 60_000);

  it('runs the same edit last behind the initial list with the default FIFO queue', async () => {
    const { editPass, depthByPriority } = await editDuringInitialList(false);
    expect(editPass).toBe(BACKLOG - 1);
    expect(depthByPriority).toBeUndefined();
  }, 60_000);
});
