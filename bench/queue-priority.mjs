// Priority order of @protean/queue's queues under the two loads that motivate a priority queue.
//
// Both scenarios run on core's FakeClock as a discrete simulation: W = 4 workers, every pass takes 10 ms of
// simulated time, so the workers finish 400 items per simulated second. Each 10 ms step first adds that step's
// arrivals, then each worker takes one queued item (get), runs its pass and marks it done. Figures are simulated
// milliseconds: they depend on the queue's order only, not on the machine.
// - edit behind a backlog: 10,000 instances of a newly registered parent kind are queued as 'initial-list' at
//   t = 0; at t = 1 s a person's edit of another instance arrives ('live'). Measured: time from the edit's add to
//   its pass beginning.
// - starvation: a steady stream of live edits of distinct objects at 500/s (above the workers' 400/s) and one
//   low-priority 'resync' item every 100 ms, for 120 simulated seconds. Measured: the longest wait of a low item
//   (handed out, or still queued at the end: its wait so far), how many low items were never handed out, and for
//   context the longest wait of a live item (the stream overloads the workers, so some wait grows without bound).
// Queues: FIFO (RateLimitingWorkQueue, which ignores the source), strict priority (PriorityRateLimitingQueue with
// maxWaitMs Infinity: no aging, controller-runtime's behaviour) and ours (PriorityRateLimitingQueue, default
// maxWaitMs 30,000).
import { FakeClock } from '@protean/core/testing';
import { PriorityRateLimitingQueue, RateLimitingWorkQueue } from '@protean/queue';
import { parseArgs } from './lib/args.mjs';
import { emitResult, progress } from './lib/report.mjs';

const flags = parseArgs(process.argv.slice(2), ['quick', 'out']);
const WORKERS = 4;
const PASS_MS = 10;
const BACKLOG = 10_000;
const STREAM_SECONDS = flags.quick === true ? 60 : 120;

const QUEUES = [
  ['FIFO', (clock) => new RateLimitingWorkQueue({ key: (s) => s, clock })],
  ['strict priority', (clock) => new PriorityRateLimitingQueue({ key: (s) => s, clock, maxWaitMs: Infinity })],
  ['priority + aging 30 s', (clock) => new PriorityRateLimitingQueue({ key: (s) => s, clock })],
];

/** Runs `steps` steps of 10 ms; `arrivals(step, add)` adds that step's items; `started(item, nowMs)` sees each pass begin. */
async function simulate(queue, clock, steps, arrivals, started) {
  for (let step = 0; step < steps; step++) {
    arrivals(step, (item, source) => queue.add(item, source));
    for (let w = 0; w < WORKERS && queue.len() > 0; w++) {
      const next = await queue.get();
      started(next.item, clock.now());
      queue.done(next.item);
    }
    clock.advance(PASS_MS);
  }
}

async function editBehindBacklog(make) {
  const clock = new FakeClock();
  const queue = make(clock);
  const editAt = 1_000;
  let editStartedAt;
  await simulate(
    queue,
    clock,
    BACKLOG / WORKERS + 200,
    (step, add) => {
      if (step === 0) for (let i = 0; i < BACKLOG; i++) add(`listed-${i}`, 'initial-list');
      if (step * PASS_MS === editAt) add('edited', 'live');
    },
    (item, now) => {
      if (item === 'edited') editStartedAt = now;
    },
  );
  if (editStartedAt === undefined) throw new Error('the edit never ran');
  return editStartedAt - editAt;
}

async function starvation(make) {
  const clock = new FakeClock();
  const queue = make(clock);
  const lowAddedAt = new Map();
  const liveAddedAt = new Map();
  let longestMs = 0;
  let longestLiveMs = 0;
  let live = 0;
  const steps = (STREAM_SECONDS * 1_000) / PASS_MS;
  await simulate(
    queue,
    clock,
    steps,
    (step, add) => {
      for (let i = 0; i < 5; i++) {
        liveAddedAt.set(`live-${live}`, clock.now());
        add(`live-${live++}`, 'live');
      }
      if (step % 10 === 0) {
        lowAddedAt.set(`low-${step}`, clock.now());
        add(`low-${step}`, 'resync');
      }
    },
    (item, now) => {
      const liveAt = liveAddedAt.get(item);
      if (liveAt !== undefined) {
        longestLiveMs = Math.max(longestLiveMs, now - liveAt);
        liveAddedAt.delete(item);
        return;
      }
      const at = lowAddedAt.get(item);
      if (at === undefined) return;
      longestMs = Math.max(longestMs, now - at);
      lowAddedAt.delete(item);
    },
  );
  for (const at of lowAddedAt.values()) longestMs = Math.max(longestMs, clock.now() - at);
  for (const at of liveAddedAt.values()) longestLiveMs = Math.max(longestLiveMs, clock.now() - at);
  return { longestMs, longestLiveMs, neverRan: lowAddedAt.size, lowAdded: steps / 10 };
}

const rows = [];
const details = {};
for (const [label, make] of QUEUES) {
  progress('queue-priority', `${label}: edit behind ${BACKLOG.toLocaleString('en-US')} initial-list items`);
  const editMs = await editBehindBacklog(make);
  rows.push({
    measure: `edit to pass, ${BACKLOG.toLocaleString('en-US')} queued: ${label}`,
    size: '10,000 items',
    work: BACKLOG,
    value: editMs,
    unit: 'ms',
    cost: 'none',
  });
  progress('queue-priority', `${label}: low items under a 500/s live stream for ${STREAM_SECONDS} s`);
  const s = await starvation(make);
  rows.push({
    measure: `longest low-item wait: ${label}`,
    size: `${STREAM_SECONDS} s`,
    work: STREAM_SECONDS,
    value: s.longestMs / 1_000,
    unit: 's',
    cost: 'none',
    digits: 2,
  });
  rows.push({
    measure: `longest live-item wait: ${label}`,
    size: `${STREAM_SECONDS} s`,
    work: STREAM_SECONDS,
    value: s.longestLiveMs / 1_000,
    unit: 's',
    cost: 'none',
    digits: 2,
  });
  details[label] = { editToPassMs: editMs, ...s };
}

emitResult(flags, {
  name: 'queue-priority',
  title: 'Priority order: FIFO, strict priority, priority with aging (simulated time)',
  rows,
  notes: Object.entries(details).map(
    ([label, d]) =>
      `${label}: edit waited ${d.editToPassMs} ms behind ${BACKLOG} initial-list items; longest low-item wait ${(d.longestMs / 1000).toFixed(2)} s, ${d.neverRan} of ${d.lowAdded} low items never ran; longest live-item wait ${(d.longestLiveMs / 1000).toFixed(2)} s`,
  ),
  details,
});
