/**
 * How often {@link holdMemoryReducer} allocates on the embedder heap. V8
 * decays the rate it measures by half every 100 ms, and a double underflows
 * to an exact 0 after about 1,075 halvings (107 s): any period below that
 * keeps the rate positive. 30 s leaves room for a busy event loop.
 */
const MEMORY_REDUCER_HOLD_PERIOD_MS = 30_000;

let holders = 0;
let timer: ReturnType<typeof setInterval> | undefined;

/**
 * Keeps V8's memory reducer able to see that the process went idle, for as
 * long as one holder holds it; returns the release (idempotent).
 *
 * Why: after a burst (an informer's initial list, a relist) V8 leaves the
 * garbage the burst promoted in old space until a full collection, and an
 * idle controller triggers none. V8's memory reducer exists for that moment:
 * every 8 s it checks whether allocation has stopped and, if so, runs a
 * memory-reducing full collection that also hands pooled pages back. In
 * V8 13.1 to 14.x (Node 24 and 26) its check never passes in a process that
 * allocates nothing on the embedder's (cppgc) heap: the embedder's rate then
 * reads exactly 0, which the check takes for the highest rate there is, so
 * only its 100 s watchdog collects, and only when no other full collection
 * came first. Compiling a `vm.Script` allocates one small object on that
 * heap; once every {@link MEMORY_REDUCER_HOLD_PERIOD_MS} keeps the rate
 * small and positive, and the reducer decides by the JavaScript heap's
 * rates as it does in Node 22. Nothing here forces a collection: V8 still
 * decides when, and a process that keeps allocating is never interrupted.
 *
 * The informers hold it while they run. The timer is `unref`'d: it never
 * keeps a process alive.
 */
export function holdMemoryReducer(): () => void {
  holders++;
  if (timer === undefined) {
    touchEmbedderHeap();
    // Real time, not an injected Clock: V8's reducer ticks in real time, and the timer must be unref'd.
    // eslint-disable-next-line no-restricted-globals
    timer = setInterval(touchEmbedderHeap, MEMORY_REDUCER_HOLD_PERIOD_MS);
    timer.unref();
  }
  let released = false;
  return () => {
    if (released) return;
    released = true;
    holders--;
    if (holders === 0 && timer !== undefined) {
      clearInterval(timer);
      timer = undefined;
    }
  };
}

/** How many holders hold the memory reducer now (for tests). */
export function memoryReducerHolders(): number {
  return holders;
}

function touchEmbedderHeap(): void {
  // Node allocates the ContextifyScript behind a vm.Script on the cppgc heap.
  new (process.getBuiltinModule('node:vm').Script)('0');
}
