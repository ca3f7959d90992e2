// A Jest test sequencer (`--testSequencer`) for the root test runner's Jest
// steps: the longest test files first, so the last files a run starts are
// short ones and no worker is left alone with a long one at the end.
//
// Jest's own sequencer does this from a timing cache keyed by the checkout's
// absolute path, so every fresh clone (a new path) starts blind and falls back
// to file size, which puts the real tier's longest files (a few lines each
// that run a shared scenario: conformance, leastPrivilege, observedPermissions)
// last: about a minute more on 2 cores. This one keeps each file's last
// duration by its path from the repository root, in
// `$XDG_CACHE_HOME/protean/jest-durations.json` (~/.cache by default), so a
// checkout anywhere on the machine reuses what another one measured. A file
// with no duration yet (a new one) runs first, longest (largest) first. Only
// the order changes: which tests run, and how, is Jest's.
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, relative } from 'node:path';

const file = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'protean', 'jest-durations.json');

function load() {
  try {
    return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
  } catch {
    return {};
  }
}

export default class LongestFirstSequencer {
  constructor() {
    this.durations = load();
  }

  /** A test's key: its path from the directory Jest runs in (the repository root, or a copy of it). */
  key(test) {
    return relative(process.cwd(), test.path);
  }

  sort(tests) {
    const size = (test) => {
      try {
        return statSync(test.path).size;
      } catch {
        return 0;
      }
    };
    const known = (test) => this.durations[this.key(test)];
    return [...tests].sort((a, b) => {
      const [da, db] = [known(a), known(b)];
      if ((da === undefined) !== (db === undefined)) return da === undefined ? -1 : 1;
      if (da !== undefined && db !== undefined && da !== db) return db - da;
      return size(b) - size(a);
    });
  }

  allFailedTests(tests) {
    return tests;
  }

  /** Records each file's duration (seconds) that ran to its end, and writes the file whole (read again, merged, renamed). */
  cacheResults(tests, results) {
    const measured = {};
    for (const result of results.testResults) {
      if (result.skipped || result.testExecError !== undefined) continue;
      const { runtime, start, end } = result.perfStats;
      const ms = runtime ?? end - start;
      if (ms > 0) measured[relative(process.cwd(), result.testFilePath)] = Math.round(ms / 100) / 10;
    }
    if (Object.keys(measured).length === 0) return;
    try {
      mkdirSync(dirname(file), { recursive: true });
      const temporary = `${file}.${process.pid}`;
      writeFileSync(temporary, `${JSON.stringify({ ...load(), ...measured })}\n`);
      renameSync(temporary, file);
    } catch {
      // Only the next run's order depends on it.
    }
  }
}
