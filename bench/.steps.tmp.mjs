import { createRequire } from 'node:module';
const req = createRequire('/work/main/packages/core/package.json');
const steps = process.argv[2].split(',');
const collect = async () => { for (let i = 0; i < 3; i++) { globalThis.gc({ type: 'major', execution: 'sync', flavor: 'last-resort' }); await new Promise((r) => setImmediate(r)); } };
const mib = (b) => (b / 1048576).toFixed(1);
await collect();
let last = process.memoryUsage.rss();
const out = [`start ${mib(last)}`];
for (const s of steps) {
  if (s.startsWith('node:') || s.startsWith('@protean') || s.startsWith('./')) await import(s);
  else await import(req.resolve(s));
  await collect();
  const now = process.memoryUsage.rss();
  out.push(`${s} +${mib(now - last)}`);
  last = now;
}
out.push(`end ${mib(last)}`);
console.log(out.join(' | '));
