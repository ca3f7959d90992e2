// Command-line flags shared by run.mjs and every benchmark script.
//
//   --quick          small sizes and fewer repetitions, for development
//   --only=a,b       (run.mjs) run only the named benchmarks
//   --out=<file>     (benchmark scripts) write the result JSON there instead of printing a table

/** Parses `--name` and `--name=value` flags; anything else is an error naming the argument. */
export function parseArgs(argv, known) {
  const flags = {};
  for (const arg of argv) {
    const match = /^--([a-z-]+)(?:=(.*))?$/.exec(arg);
    if (match === null || !known.includes(match[1])) {
      throw new Error(`unknown argument ${JSON.stringify(arg)}; expected ${known.map((k) => `--${k}`).join(', ')}`);
    }
    flags[match[1]] = match[2] ?? true;
  }
  return flags;
}
