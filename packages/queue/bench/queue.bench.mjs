// Throughput of @protean/queue on the built package (run `pnpm bench`).
//
// Method: each scenario runs once as a warm-up (JIT, map and buffer growth),
// then 5 timed repetitions on a fresh queue; the table reports the median
// repetition in items per second (and the spread of the 5). Timing uses
// performance.now() around the scenario only; keys are generated beforehand.
// One "item" is one add -> get -> done cycle handed to a consumer. The 10%
// duplicate adds are extra add() calls that cost time but are not counted,
// except where a duplicate hits a key already being processed: that key is
// rightly processed again and counts (4 workers: 4 keys per chunk).
// The last two rows repeat the 1-consumer scenario on { key, group } items
// spread over 10 groups: on the plain queue, then on the fair queue.
import { FairRateLimitingQueue, RateLimitingWorkQueue } from '../dist/index.js';

const ITEMS = 1_000_000;
const RATE_LIMITED_ITEMS = ITEMS;
const REPETITIONS = 5;
const CHUNK = 1_000;
const DUPLICATES_PER_CHUNK = CHUNK / 10;

const keys = Array.from({ length: ITEMS }, (_, i) => `namespace-${i % 97}/object-${i}`);
const identity = (item) => item;

function newQueue() {
  return new RateLimitingWorkQueue({ key: identity });
}

// Adds a chunk of keys and re-adds 10% of them while they are still queued.
function addChunk(queue, start) {
  const end = Math.min(start + CHUNK, ITEMS);
  for (let i = start; i < end; i++) queue.add(keys[i]);
  for (let i = start; i < start + DUPLICATES_PER_CHUNK && i < end; i++) queue.add(keys[i]);
}

// One consumer: fill a chunk, then get/done until the queue is empty.
async function singleConsumer() {
  const queue = newQueue();
  let processed = 0;
  for (let start = 0; start < ITEMS; start += CHUNK) {
    addChunk(queue, start);
    while (queue.len() > 0) {
      const result = await queue.get();
      queue.done(result.item);
      processed++;
    }
  }
  queue.shutdown();
  // Nothing is being processed while a chunk is added, so duplicates all collapse.
  if (processed !== ITEMS) throw new Error(`single consumer: processed ${processed} of ${ITEMS}`);
  return processed;
}

// Four async workers loop on get/done while the producer adds a chunk at a
// time and yields to the event loop in between, so the workers also take the
// "wait for an item" path when they drain the queue.
async function fourWorkers() {
  const queue = newQueue();
  let processed = 0;
  const worker = async () => {
    for (;;) {
      const result = await queue.get();
      if (result.shutdown) return;
      queue.done(result.item);
      processed++;
    }
  };
  const workers = [worker(), worker(), worker(), worker()];
  for (let start = 0; start < ITEMS; start += CHUNK) {
    addChunk(queue, start);
    await new Promise((resolve) => setImmediate(resolve));
  }
  queue.shutdown();
  await Promise.all(workers);
  if (processed < ITEMS || queue.len() !== 0) throw new Error(`4 workers: processed ${processed} of ${ITEMS}`);
  return processed;
}

// addRateLimited + forget on distinct keys with the default controller
// limiter (exponential 5 ms..1000 s, bucket 10 qps burst 100) on the real
// clock: every item goes through both limiters and into the delay heap.
async function rateLimited() {
  const queue = newQueue();
  for (let i = 0; i < RATE_LIMITED_ITEMS; i++) {
    const key = keys[i];
    queue.addRateLimited(key);
    queue.forget(key);
  }
  const waiting = queue.waitingLen();
  queue.shutdown();
  if (waiting !== RATE_LIMITED_ITEMS) throw new Error(`expected ${RATE_LIMITED_ITEMS} delayed items, got ${waiting}`);
  return RATE_LIMITED_ITEMS;
}

// The single-consumer scenario on object items { key, group } over 10
// groups: each chunk adds runs of 100 items per group, so a fair queue really
// interleaves groups on get(). Kept separate from singleConsumer so the rows
// above measure exactly what they always have.
const GROUPS = 10;
const RUN = CHUNK / GROUPS;
const groupNames = Array.from({ length: GROUPS }, (_, g) => `example.com/v1/kind${g}`);
const groupedItems = keys.map((key, i) => ({ key, group: groupNames[Math.floor(i / RUN) % GROUPS] }));
const keyOf = (item) => item.key;
const groupOf = (item) => item.group;

async function groupedSingleConsumer(queue) {
  let processed = 0;
  for (let start = 0; start < ITEMS; start += CHUNK) {
    const end = Math.min(start + CHUNK, ITEMS);
    for (let i = start; i < end; i++) queue.add(groupedItems[i]);
    for (let i = start; i < start + DUPLICATES_PER_CHUNK && i < end; i++) queue.add(groupedItems[i]);
    while (queue.len() > 0) {
      const result = await queue.get();
      queue.done(result.item);
      processed++;
    }
  }
  queue.shutdown();
  if (processed !== ITEMS) throw new Error(`grouped single consumer: processed ${processed} of ${ITEMS}`);
  return processed;
}

async function measure(name, scenario) {
  await scenario();
  const rates = [];
  let items = 0;
  for (let i = 0; i < REPETITIONS; i++) {
    const started = performance.now();
    items = await scenario();
    const seconds = (performance.now() - started) / 1000;
    rates.push(items / seconds);
  }
  rates.sort((a, b) => a - b);
  return { name, items, median: rates[Math.floor(REPETITIONS / 2)], min: rates[0], max: rates[REPETITIONS - 1] };
}

const rows = [
  await measure('add+get+done, 1 consumer, 10% dup adds', singleConsumer),
  await measure('add+get+done, 4 async workers, 10% dup adds', fourWorkers),
  await measure('addRateLimited+forget (default limiter)', rateLimited),
  await measure('FIFO queue, same 10-group items (reference)', () => groupedSingleConsumer(new RateLimitingWorkQueue({ key: keyOf }))),
  await measure('fair queue: add+get+done, 10 groups, 10% dup adds', () =>
    groupedSingleConsumer(new FairRateLimitingQueue({ key: keyOf, group: groupOf })),
  ),
];

const fmt = (n) => Math.round(n).toLocaleString('en-US');
const header = ['scenario', 'items', 'median items/s', 'min..max items/s'];
const table = rows.map((r) => [r.name, fmt(r.items), fmt(r.median), `${fmt(r.min)}..${fmt(r.max)}`]);
const widths = header.map((h, i) => Math.max(h.length, ...table.map((row) => row[i].length)));
const line = (cells) => `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ')} |`;
console.log(`@protean/queue benchmark (node ${process.version}, warm-up + ${REPETITIONS} runs, median)`);
console.log(line(header));
console.log(`|${widths.map((w, i) => (i === 0 ? `:${'-'.repeat(w + 1)}` : `${'-'.repeat(w + 1)}:`)).join('|')}|`);
for (const row of table) console.log(line(row));
