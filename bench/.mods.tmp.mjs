import { createRequire } from 'node:module';
const req = createRequire('/work/main/packages/core/package.json');
const before = new Set(process.moduleLoadList);
const s = process.argv[2];
if (s !== 'none') await import(s.startsWith('@protean') || s.startsWith('node:') ? s : req.resolve(s));
const added = process.moduleLoadList.filter((m) => !before.has(m));
console.log(s, added.length, added.filter((m) => m.startsWith('NativeModule') && !m.includes('internal/')).join(' '));
console.log('  internal:', added.filter((m) => m.includes('internal/')).map((m) => m.replace('NativeModule internal/', '')).join(' ').slice(0, 1500));
