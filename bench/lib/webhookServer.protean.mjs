// The Protean side of the webhooks benchmark (webhooks.mjs), the counterpart
// of `webhook-anchor -serve` (bench/webhook-anchor/serve.go): a WebhookServer
// of @protean/webhooks with the same two handlers, over HTTPS on 127.0.0.1:
//   /validate  denies an object that has data.forbidden
//   /mutate    labels the object bench.protean.dev/seen=true (the server
//              answers with the JSON Patch to that)
// Prints {"ready":true,"url":...,"pid":...} on stdout once listening, and
// serves until SIGINT or SIGTERM.
//
//   node lib/webhookServer.protean.mjs --cert-file=DIR/tls.crt --key-file=DIR/tls.key --port=9443
import { createLogger } from '@protean/core';
import { WebhookServer } from '@protean/webhooks';
import { parseArgs } from './args.mjs';

const SEEN_LABEL = 'bench.protean.dev/seen';
const FORBIDDEN_MESSAGE = 'data.forbidden is not allowed here';

const flags = parseArgs(process.argv.slice(2), ['cert-file', 'key-file', 'host', 'port']);
if (typeof flags['cert-file'] !== 'string' || typeof flags['key-file'] !== 'string') {
  throw new Error('webhookServer.protean.mjs: --cert-file=FILE and --key-file=FILE are required');
}

const server = new WebhookServer({
  tls: { certFile: flags['cert-file'], keyFile: flags['key-file'] },
  host: typeof flags.host === 'string' ? flags.host : '127.0.0.1',
  port: Number(flags.port ?? 9443),
  // Info level, like the Go side's zap logger: nothing is logged per request on either.
  logger: createLogger({ name: 'bench-webhooks', level: 'info' }, process.stderr),
});

server.validate('/validate', (request) => {
  const data = request.object?.data;
  if (data !== null && typeof data === 'object' && Object.hasOwn(data, 'forbidden')) {
    return { allowed: false, message: FORBIDDEN_MESSAGE };
  }
  return { allowed: true };
});

server.mutate('/mutate', (request) => {
  const object = request.object;
  if (object === undefined) return {};
  const metadata = object.metadata ?? {};
  return { object: { ...object, metadata: { ...metadata, labels: { ...metadata.labels, [SEEN_LABEL]: 'true' } } } };
});

const url = await server.start();
process.stdout.write(`${JSON.stringify({ ready: true, url, pid: process.pid })}\n`);
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    void server.stop().finally(() => process.exit(0));
  });
}
