// Work-queue throughput of @protean/queue's RateLimitingWorkQueue, FairRateLimitingQueue and PriorityRateLimitingQueue.
//
// Scenarios, each at 100,000 and 1,000,000 items (quick: 10,000 and 100,000):
// - add/get/done with 1 consumer and 10% duplicates: add a chunk of 1,000 keys
//   and re-add every 10th (collapsing while queued), then get() -> done()
//   until the queue is empty. Counted: get/done cycles.
// - add/get/done with 4 workers and 10% duplicates: a producer adds the keys
//   in chunks of 1,000, re-adds every 10th key of the chunk (a duplicate that
//   collapses while queued) and yields to the event loop; 4 async workers loop
//   on get() -> done(). Counted: get/done cycles handed to a worker.
// - addRateLimited: one call per distinct key on a queue with the default
//   controller limiter (per-item exponential backoff max'd with a 10/s, burst
//   100 token bucket), so every call consults both limiters and all but the
//   first 100 items go into the delay heap. Counted: calls.
// - the 1-consumer scenario on { key, group } items over 10 groups (each chunk
//   holds runs of 100 items per group, so a fair queue really interleaves
//   them): on the FIFO RateLimitingWorkQueue (the reference), then on
//   FairRateLimitingQueue. Counted: get/done cycles.
// - the 1-consumer scenario on PriorityRateLimitingQueue, every other key added as 'initial-list' (low), the rest
//   and every duplicate 'live' (a duplicate of a low item moves it up). Counted: get/done cycles.
// Keys ("ns-<i mod 97>/object-<i>") are built before timing; a fresh queue per run.
//
// Method: per scenario and size, untimed warm-up runs until they have used
// 500 ms of CPU (quick too: with less, the first size of the { key, group }
// rows ran 3-5x slow, still re-optimising for the new item shape), then 5
// timed samples (quick: 3), each repeating the run until it has used >= 100 ms
// of CPU, so the small size is not timed on a 20 ms blip. Time is the process's CPU time
// (process.cpuUsage, user + system), so time descheduled on the shared
// machine does not count (GC helper threads do, which makes figures
// conservative). Reported: the median rate of the samples.
import { FairRateLimitingQueue, PriorityRateLimitingQueue, RateLimitingWorkQueue } from '@protean/queue';
import { parseArgs } from './lib/args.mjs';
import { emitResult, progress } from './lib/report.mjs';
import { cpuMsSince, median, tick } from './lib/stats.mjs';

const flags = parseArgs(process.argv.slice(2), ['quick', 'out']);
const quick = flags.quick === true;
const SIZES = quick ? [10_000, 100_000] : [100_000, 1_000_000];
const SAMPLES = quick ? 3 : 5;
const WARMUP_CPU_MS = 500;
const MIN_SAMPLE_CPU_MS = 100;
const CHUNK = 1_000;
const WORKERS = 4;

const keys = Array.from({ length: SIZES.at(-1) }, (_, i) => `ns-${i % 97}/object-${i}`);
const byKey = (item) => item;
const GROUPS = 10;
const groupNames = Array.from({ length: GROUPS }, (_, g) => `example.com/v1/kind${g}`);
const groupedItems = keys.map((key, i) => ({ key, group: groupNames[Math.floor(i / (CHUNK / GROUPS)) % GROUPS] }));
const keyOf = (item) => item.key;
const groupOf = (item) => item.group;

const NO_SOURCES = [undefined, undefined];
// Every other item an initial-list add, the rest live; every duplicate live (moving an initial-list item up).
const MIXED_SOURCES = ['initial-list', 'live'];

/** One consumer on `queue` over `items`: add a chunk (10% re-added), then get/done until empty. Returns the cycles. */
async function oneConsumer(queue, items, n, sources = NO_SOURCES) {
  let cycles = 0;
  for (let start = 0; start < n; start += CHUNK) {
    const end = Math.min(start + CHUNK, n);
    for (let i = start; i < end; i++) queue.add(items[i], sources[i & 1]);
    for (let i = start; i < end; i += 10) queue.add(items[i], 'live');
    while (queue.len() > 0) {
      const next = await queue.get();
      queue.done(next.item);
      cycles++;
    }
  }
  queue.shutdown();
  // Nothing is being processed while a chunk is added, so every duplicate collapses.
  if (cycles !== n) throw new Error(`1 consumer handled ${cycles} of ${n} items`);
  return cycles;
}

/** Returns the get/done cycles completed. */
async function fourWorkers(n) {
  const queue = new RateLimitingWorkQueue({ key: byKey });
  let cycles = 0;
  const worker = async () => {
    for (;;) {
      const next = await queue.get();
      if (next.shutdown) return;
      queue.done(next.item);
      cycles++;
    }
  };
  const workers = Array.from({ length: WORKERS }, worker);
  for (let start = 0; start < n; start += CHUNK) {
    const end = Math.min(start + CHUNK, n);
    for (let i = start; i < end; i++) queue.add(keys[i]);
    for (let i = start; i < end; i += 10) queue.add(keys[i]);
    await tick();
  }
  queue.shutdown();
  await Promise.all(workers);
  if (cycles < n) throw new Error(`4 workers handled ${cycles} of ${n} items`);
  return cycles;
}

/** Returns the addRateLimited calls made. */
async function rateLimited(n) {
  const queue = new RateLimitingWorkQueue({ key: byKey });
  for (let i = 0; i < n; i++) queue.addRateLimited(keys[i]);
  const delayed = queue.waitingLen();
  queue.shutdown();
  if (delayed + queue.len() < n) throw new Error(`addRateLimited: ${delayed} delayed + ${queue.len()} queued of ${n}`);
  return n;
}

async function measure(scenario, n) {
  const warmup = process.cpuUsage();
  do await scenario(n);
  while (cpuMsSince(warmup) < WARMUP_CPU_MS);
  const rates = [];
  for (let sample = 0; sample < SAMPLES; sample++) {
    const started = process.cpuUsage();
    let count = 0;
    let ms;
    do {
      count += await scenario(n);
      ms = cpuMsSince(started);
    } while (ms < MIN_SAMPLE_CPU_MS);
    rates.push((count / ms) * 1000);
  }
  return rates;
}

const scenarios = [
  {
    measure: 'add/get/done cycles, 1 consumer, 10% dups',
    unit: 'cycles/s',
    run: (n) => oneConsumer(new RateLimitingWorkQueue({ key: byKey }), keys, n),
  },
  { measure: 'add/get/done cycles, 4 workers, 10% dups', unit: 'cycles/s', run: fourWorkers },
  { measure: 'addRateLimited (default controller limiter)', unit: 'calls/s', run: rateLimited },
  {
    measure: 'FIFO queue, 1 consumer, 10-group items (reference)',
    unit: 'cycles/s',
    run: (n) => oneConsumer(new RateLimitingWorkQueue({ key: keyOf }), groupedItems, n),
  },
  {
    measure: 'fair queue, 1 consumer, 10 groups, 10% dups',
    unit: 'cycles/s',
    run: (n) => oneConsumer(new FairRateLimitingQueue({ key: keyOf, group: groupOf }), groupedItems, n),
  },
  {
    measure: 'priority queue, 1 consumer, half initial-list, 10% dups',
    unit: 'cycles/s',
    run: (n) => oneConsumer(new PriorityRateLimitingQueue({ key: byKey }), keys, n, MIXED_SOURCES),
  },
];
const rows = [];
const details = [];
for (const s of scenarios) {
  for (const n of SIZES) {
    progress('queue', `${s.measure}: ${n.toLocaleString('en-US')} items`);
    const rates = await measure(s.run, n);
    rows.push({
      measure: s.measure,
      size: `${n.toLocaleString('en-US')} items`,
      work: n,
      value: median(rates),
      unit: s.unit,
      cost: 'inverse',
    });
    details.push({ measure: s.measure, items: n, rates });
  }
}
emitResult(flags, {
  name: 'queue',
  title: 'RateLimitingWorkQueue throughput',
  rows,
  notes: [
    `rates per CPU-second, median of ${SAMPLES} samples (each >= ${MIN_SAMPLE_CPU_MS} ms CPU) after ${WARMUP_CPU_MS} ms CPU of warm-up runs; fresh queue per run`,
    'FIFO queue (reference) and FairRateLimitingQueue rows run the 1-consumer scenario on { key, group } items over 10 groups',
    'the priority queue row runs the 1-consumer scenario with every other key added as initial-list and the duplicates live (each moves its item up); compare it with the first row',
  ],
  details,
});
