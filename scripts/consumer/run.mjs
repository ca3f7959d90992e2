// Runs a child process to completion, capturing its output.
import { spawnSync } from 'node:child_process';

/**
 * Runs `cmd args` in `cwd` and returns `{ ok, status, stdout, stderr, output, seconds }`.
 * `output` is stdout and stderr joined, for failure messages. With
 * `inherit: true` the output goes straight to the terminal instead.
 * Easy to get wrong: `timeoutMs` kills the child with SIGTERM and reports
 * `ok: false` with `status: null`; a missing binary also gives `ok: false`
 * with the spawn error in `output`.
 */
export function run(cmd, args, { cwd, env, timeoutMs = 10 * 60_000, inherit = false } = {}) {
  const started = Date.now();
  const res = spawnSync(cmd, args, {
    cwd,
    env: env ?? process.env,
    encoding: 'utf8',
    timeout: timeoutMs,
    maxBuffer: 256 * 1024 * 1024,
    stdio: inherit ? ['ignore', 'inherit', 'inherit'] : ['ignore', 'pipe', 'pipe'],
  });
  const stdout = res.stdout ?? '';
  const stderr = res.stderr ?? '';
  const spawnError = res.error === undefined ? '' : `\n${res.error.message}`;
  return {
    ok: res.status === 0,
    status: res.status,
    signal: res.signal,
    stdout,
    stderr,
    output: `${stdout}${stderr}${spawnError}`.trim(),
    seconds: (Date.now() - started) / 1000,
  };
}

/** The last `lines` lines of `text`, for failure messages. */
export function tail(text, lines = 30) {
  return text.trim().split('\n').slice(-lines).join('\n');
}
