// Helpers of the end-to-end benchmark that talk to a real kube-apiserver
// through @kubernetes/client-node.
import { execFileSync } from 'node:child_process';
import https from 'node:https';
import { fileURLToPath } from 'node:url';
import { ApiextensionsV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { sleep } from './stats.mjs';

/**
 * The directory holding kube-apiserver and etcd: `PROTEAN_KUBE_BIN_DIR`, else
 * the last line `tools/kube-apiserver/build.sh` prints (it builds on a cold
 * cache, which takes minutes, and is instant otherwise).
 */
export function kubeBinDir() {
  const fromEnv = process.env.PROTEAN_KUBE_BIN_DIR;
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  const script = fileURLToPath(new URL('../../tools/kube-apiserver/build.sh', import.meta.url));
  const out = execFileSync('bash', [script], { stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
  const dir = out.trim().split('\n').at(-1);
  if (dir === undefined || dir === '') throw new Error(`${script} printed no binary directory`);
  return dir;
}

/** HTTP status of a client-node error, if any. */
export function statusOf(err) {
  const code = err?.code ?? err?.statusCode ?? err?.response?.statusCode;
  return typeof code === 'number' ? code : undefined;
}

/**
 * Calls `create(i)` for every i in [from, to) with at most `concurrency`
 * calls in flight. A 409 (already exists) counts as done; 429, 5xx and
 * network errors are retried up to 5 times with a short pause.
 */
export async function createAll(from, to, concurrency, create) {
  let next = from;
  const runOne = async () => {
    for (;;) {
      const i = next++;
      if (i >= to) return;
      for (let attempt = 1; ; attempt++) {
        try {
          await create(i);
          break;
        } catch (err) {
          const status = statusOf(err);
          if (status === 409) break;
          const retriable = status === undefined || status === 429 || status >= 500;
          if (!retriable || attempt >= 5)
            throw new Error(`creating object #${i} failed (status ${status ?? 'none'}): ${err.message}`, { cause: err });
          await sleep(50 * attempt);
        }
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, runOne));
}

/** A namespaced CRD `<plural>.<group>`, v1, with `schema` (default: objects may hold any fields). */
export function crdManifest(gvr, kind, schema = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }) {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${gvr.resource}.${gvr.group}` },
    spec: {
      group: gvr.group,
      scope: 'Namespaced',
      names: { plural: gvr.resource, singular: kind.toLowerCase(), kind, listKind: `${kind}List` },
      versions: [
        {
          name: gvr.version,
          served: true,
          storage: true,
          schema: { openAPIV3Schema: schema },
        },
      ],
    },
  };
}

/**
 * Creates the CRD and waits until the API server serves the kind: the CRD is
 * Established and a LIST of the resource answers (right after Established
 * it can still 404 for a moment).
 */
export async function defineParentKind(kc, gvr, kind, schema) {
  const crds = kc.makeApiClient(ApiextensionsV1Api);
  const objects = kc.makeApiClient(CustomObjectsApi);
  const body = crdManifest(gvr, kind, schema);
  await crds.createCustomResourceDefinition({ body });
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      const crd = await crds.readCustomResourceDefinition({ name: body.metadata.name });
      const established = crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True');
      if (established) {
        await objects.listClusterCustomObject({ group: gvr.group, version: gvr.version, plural: gvr.resource, limit: 1 });
        return;
      }
    } catch (err) {
      if (statusOf(err) !== 404) throw err;
    }
    if (Date.now() > deadline) throw new Error(`CRD ${body.metadata.name} was not served within 60 s`);
    await sleep(100);
  }
}

/**
 * A minimal JSON client over one keep-alive HTTPS agent with the
 * KubeConfig's credentials: `request(method, path, body?, contentType?)`
 * resolves with the response text (`contentType` defaults to
 * `application/json`; a PATCH passes its patch type). The latency benchmark times its updates with it:
 * client-node 1.4 opens a new TLS connection per request and runs a long
 * promise chain before its call resolves, which would move the "response
 * received" timestamp well past the moment the server answered.
 */
export async function keepAliveClient(kc) {
  const opts = { headers: {} };
  await kc.applyToHTTPSOptions(opts);
  const agent = new https.Agent({ keepAlive: true, maxSockets: 32, ca: opts.ca, cert: opts.cert, key: opts.key });
  const server = new URL(kc.getCurrentCluster().server);
  const request = (method, path, body, contentType = 'application/json') =>
    new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const req = https.request(
        {
          agent,
          method,
          hostname: server.hostname,
          port: server.port,
          path,
          headers: {
            ...opts.headers,
            accept: 'application/json',
            ...(payload === undefined ? {} : { 'content-type': contentType }),
          },
        },
        (res) => {
          const chunks = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            if (res.statusCode >= 300) {
              // statusCode as client-node's errors carry it, so statusOf() and createAll() read it.
              reject(
                Object.assign(new Error(`${method} ${path}: HTTP ${res.statusCode} ${text.slice(0, 200)}`), { statusCode: res.statusCode }),
              );
            } else resolve(text);
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  return { request, close: () => agent.destroy() };
}
