// Records the checks of a script run and reports them the way the root test
// runner sums them: { passed, failed, skipped, details }.
import { writeFileSync } from 'node:fs';

/**
 * An ordered list of named checks, each passed, failed (with a reason) or
 * skipped, plus free-form warnings and step timings.
 * Easy to get wrong: a step that could not run must still be recorded (as
 * skipped or failed), or the totals silently shrink.
 */
export class CheckList {
  constructor() {
    this.details = [];
    this.warnings = [];
    this.timings = [];
  }

  pass(name, note) {
    this.details.push({ name, status: 'passed', ...(note === undefined ? {} : { note }) });
    console.log(`  ok      ${name}${note === undefined ? '' : `  (${note})`}`);
  }

  fail(name, message) {
    this.details.push({ name, status: 'failed', message });
    console.log(`  FAILED  ${name}: ${message}`);
  }

  skip(name, reason) {
    this.details.push({ name, status: 'skipped', message: reason });
    console.log(`  skipped ${name}: ${reason}`);
  }

  /** Records `name` as passed when `problems` is empty, else failed listing them. */
  expectNone(name, problems) {
    if (problems.length === 0) this.pass(name);
    else this.fail(name, problems.join('; '));
  }

  warn(message) {
    this.warnings.push(message);
    console.log(`  warning ${message}`);
  }

  /** Runs `fn` as a timed step; its wall time goes into `timings`. */
  async step(name, fn) {
    console.log(`\n=== ${name}`);
    const started = Date.now();
    try {
      return await fn();
    } finally {
      const seconds = (Date.now() - started) / 1000;
      this.timings.push({ step: name, seconds });
      console.log(`=== ${name}: ${seconds.toFixed(1)}s`);
    }
  }

  counts() {
    const count = (status) => this.details.filter((d) => d.status === status).length;
    return { passed: count('passed'), failed: count('failed'), skipped: count('skipped') };
  }

  ok() {
    return this.counts().failed === 0;
  }

  /** Writes `{ passed, failed, skipped, details, warnings, timings, ...extra }` to `file`. */
  writeJson(file, extra = {}) {
    writeFileSync(
      file,
      `${JSON.stringify({ ...this.counts(), details: this.details, warnings: this.warnings, timings: this.timings, ...extra }, null, 2)}\n`,
    );
  }
}
