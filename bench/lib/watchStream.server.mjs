// A local watch stream for the ingest benchmark, run as its own process so
// its CPU is not the benchmark's. Every WATCH request gets the same
// pre-serialised newline-delimited events, written as fast as the socket
// takes them, and then stays open (so an informer does not re-watch while it
// is measured); every other GET gets an empty list at resourceVersion 1.
//
//   node watchStream.server.mjs --events=N --objects=M [--shape=server|bare]
// prints `port <n>` and `bytes <event bytes>` on stdout once listening.
import { createServer } from 'node:http';
import { parseArgs } from './args.mjs';
import { watchEventLines } from './watchEvents.mjs';

const flags = parseArgs(process.argv.slice(2), ['events', 'objects', 'shape']);
const EVENTS = Number(flags.events);
const OBJECTS = Number(flags.objects);
if (!(EVENTS > 0) || !(OBJECTS > 0)) throw new Error('watchStream.server.mjs needs --events=N --objects=M');

const body = Buffer.from(watchEventLines(EVENTS, OBJECTS, flags.shape ?? 'server').join(''), 'utf8');
const LIST = JSON.stringify({
  kind: 'PartialObjectMetadataList',
  apiVersion: 'meta.k8s.io/v1',
  metadata: { resourceVersion: '1' },
  items: [],
});

const open = new Set();
const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://localhost');
  if (url.searchParams.get('watch') !== 'true' && url.searchParams.get('watch') !== '1') {
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(LIST) });
    res.end(LIST);
    return;
  }
  res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' });
  open.add(res);
  res.on('close', () => open.delete(res));
  // 64 KiB writes, as a real server's chunks; then the stream stays open until the client goes.
  let offset = 0;
  const pump = () => {
    while (offset < body.length) {
      const chunk = body.subarray(offset, Math.min(offset + 65_536, body.length));
      offset += chunk.length;
      if (!res.write(chunk)) {
        res.once('drain', pump);
        return;
      }
    }
  };
  pump();
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`port ${server.address().port}\nbytes ${(body.length / EVENTS).toFixed(0)}\n`);
});
process.on('SIGTERM', () => {
  for (const res of open) res.destroy();
  server.close(() => process.exit(0));
});
