import { describe, expect, it } from '@jest/globals';
import { FakeWorkQueue, flushMicrotasks } from '../testing/index.js';
import { TermQueues } from './TermQueues.js';

function setup(): { queue: FakeWorkQueue<string>; terms: TermQueues<string> } {
  const queue = new FakeWorkQueue<string>({ key: (s) => s });
  return { queue, terms: new TermQueues(queue) };
}

describe('TermQueues', () => {
  it('hands items out to the term open now and answers shutdown to a term that ended', async () => {
    const { queue, terms } = setup();
    const term = new AbortController();
    const view = terms.view(term.signal);
    queue.add('a');
    await expect(view.get()).resolves.toEqual({ item: 'a', shutdown: false });
    view.done('a');
    term.abort();
    await expect(view.get()).resolves.toEqual({ shutdown: true });
    expect(queue.processing()).toEqual([]);
  });

  it('parks a get() waiting when its term ends; the next term takes it over and receives the next item', async () => {
    const { queue, terms } = setup();
    const first = new AbortController();
    const waiting = terms.view(first.signal).get();
    first.abort();
    await expect(waiting).resolves.toEqual({ shutdown: true });
    const second = new AbortController();
    const next = terms.view(second.signal).get();
    queue.add('a');
    await expect(next).resolves.toEqual({ item: 'a', shutdown: false });
    // One get() reached the queue in all: the parked one was reused, not doubled.
    queue.add('b');
    await flushMicrotasks();
    expect(queue.queued()).toEqual(['b']);
  });

  it('keeps an item a parked get() received until the next term, which gets it first', async () => {
    const { queue, terms } = setup();
    const first = new AbortController();
    void terms.view(first.signal).get();
    first.abort();
    queue.add('a');
    await flushMicrotasks();
    expect(queue.processing()).toEqual(['a']);
    const second = new AbortController();
    await expect(terms.view(second.signal).get()).resolves.toEqual({ item: 'a', shutdown: false });
  });

  it('after releaseParked, a get() parked then gives its item back with done', async () => {
    const { queue, terms } = setup();
    const first = new AbortController();
    void terms.view(first.signal).get();
    first.abort();
    const second = new AbortController();
    const view = terms.view(second.signal);
    void view.get(); // takes over the parked get()
    terms.releaseParked();
    second.abort(); // parks it again, after the release: released at once
    queue.add('a');
    queue.add('b');
    await flushMicrotasks();
    expect(queue.processing()).toEqual([]);
    expect(queue.calls.filter((call) => call.op === 'done').map((call) => call.item)).toEqual(['a']);
    expect(queue.queued()).toEqual(['b']);
  });
});
