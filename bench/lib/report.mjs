// The result format every benchmark script produces, and the table run.mjs prints.
//
// A benchmark result is { name, title, rows, notes, details }. Each row is
//   { measure, size, work, value, unit, cost?, digits? }
// where `size` labels the amount of work, `work` is that amount as a number,
// and `cost` says how the value relates to cost so the table can show how
// cost grows with the work: 'inverse' for rates (cost = time per item),
// 'direct' for bytes, latencies and durations, 'none' for rows that have no
// second size.
import { writeFileSync } from 'node:fs';

const fmtNumber = (value, digits) => value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

function defaultDigits(value) {
  const abs = Math.abs(value);
  if (abs >= 100 || Number.isInteger(value)) return 0;
  if (abs >= 10) return 1;
  return 2;
}

/** The value cell: the number with its unit. */
export function formatValue(row) {
  if (row.value === undefined || row.value === null || Number.isNaN(row.value)) return 'n/a';
  return `${fmtNumber(row.value, row.digits ?? defaultDigits(row.value))} ${row.unit}`.trim();
}

/** "size ×10, cost ×1.08" relative to the first row of the same measure, or '' for that first row. */
function growth(row, base) {
  if (base === row || (row.cost ?? 'none') === 'none' || !(base.value > 0) || !(row.value > 0)) return '';
  const workRatio = row.work / base.work;
  const costRatio = row.cost === 'inverse' ? base.value / row.value : row.value / base.value;
  const work = workRatio >= 10 ? fmtNumber(workRatio, 0) : fmtNumber(workRatio, 1);
  return `size ×${work} → cost ×${fmtNumber(costRatio, 2)}`;
}

/** One markdown table for all results (benchmark name shown when it changes). */
export function formatTable(results) {
  const header = ['benchmark', 'measure', 'size', 'value', 'vs smallest size'];
  const lines = [];
  for (const result of results) {
    if (result.error !== undefined) {
      lines.push([result.name, `FAILED: ${result.error.split('\n')[0]}`, '', '', '']);
      continue;
    }
    const firstOfMeasure = new Map();
    result.rows.forEach((row, i) => {
      if (!firstOfMeasure.has(row.measure)) firstOfMeasure.set(row.measure, row);
      lines.push([i === 0 ? result.name : '', row.measure, row.size, formatValue(row), growth(row, firstOfMeasure.get(row.measure))]);
    });
  }
  const widths = header.map((h, c) => Math.max(h.length, ...lines.map((l) => l[c].length)));
  const right = new Set([3]);
  const render = (cells) => `| ${cells.map((cell, c) => (right.has(c) ? cell.padStart(widths[c]) : cell.padEnd(widths[c]))).join(' | ')} |`;
  const rule = `|${widths.map((w, c) => (right.has(c) ? `${'-'.repeat(w + 1)}:` : `${'-'.repeat(w + 2)}`)).join('|')}|`;
  return [render(header), rule, ...lines.map(render)].join('\n');
}

/** The notes of every result, as "name: note" lines. */
export function formatNotes(results) {
  const lines = [];
  for (const result of results) {
    for (const note of result.notes ?? []) lines.push(`- ${result.name}: ${note}`);
  }
  return lines.join('\n');
}

/**
 * Hands a benchmark's result to run.mjs (`--out=<file>`), or prints it as a
 * table when the script was started on its own.
 */
export function emitResult(flags, result) {
  if (typeof flags.out === 'string') {
    writeFileSync(flags.out, `${JSON.stringify(result, null, 2)}\n`);
    return;
  }
  console.log(`\n${formatTable([result])}\n\n${formatNotes([result])}`);
}

/** Progress lines go to stderr so a piped stdout stays clean. */
export function progress(name, message) {
  process.stderr.write(`[${name}] ${message}\n`);
}
