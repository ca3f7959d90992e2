// The client-go side of the memory benchmark: a real kube-apiserver + etcd
// (startKubeApiServer from @protean/envtest) filled with the same ConfigMaps
// as the in-memory server (lib/memoryConfigMap.mjs), and the Go program in
// client-go-anchor/ in its full-object mode (-full /v1/configmaps), a fresh
// process per run: one typed client-go informer (label selector app=bench,
// so the server's own kube-root-ca.crt ConfigMaps are left out), with or without the
// transform that drops metadata.managedFields. Heap bytes per object =
// (HeapAlloc after the sync - HeapAlloc before the informer started) /
// objects, each read after runtime.GC, 1 s and debug.FreeOSMemory.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startKubeApiServer } from '@protean/envtest';
import { clientGoAnchorBinary } from './clientGoAnchor.mjs';
import { createAll, keepAliveClient, kubeBinDir } from './cluster.mjs';
import { configMap, NAMESPACES } from './memoryConfigMap.mjs';
import { progress } from './report.mjs';
import { median } from './stats.mjs';

const CREATE_CONCURRENCY = 48;

export const CLIENT_GO_CONTENDERS = [
  { measure: 'heap B/object, client-go informer (full)', strip: false },
  { measure: 'heap B/object, client-go informer (full, managedFields transform)', strip: true },
];

function runGo(binary, kubeconfig, strip, objects) {
  const args = [
    '-kubeconfig',
    kubeconfig,
    '-full',
    '/v1/configmaps',
    '-selector',
    'app=bench',
    ...(strip ? ['-strip-managed-fields'] : []),
  ];
  return new Promise((resolve, reject) => {
    execFile(binary, args, { maxBuffer: 1 << 20 }, (err, stdout) => {
      if (err) return reject(new Error(`client-go-anchor ${args.join(' ')} failed: ${err.message}`, { cause: err }));
      const report = JSON.parse(stdout.trim().split('\n').at(-1));
      if (report.objects !== objects) return reject(new Error(`client-go cached ${report.objects} objects, expected ${objects}`));
      resolve({ ...report, bytesPerObject: (report.heapAfterBytes - report.heapBeforeBytes) / objects });
    });
  });
}

/**
 * Measures both client-go contenders at every size (ascending), `rounds`
 * runs each, interleaved; returns Map `${measure}@${n}` → { bytesPerObject
 * (median), runs }.
 */
export async function measureClientGo(sizes, rounds) {
  const binary = clientGoAnchorBinary((m) => progress('memory', m));
  const scratch = mkdtempSync(join(tmpdir(), 'protean-memory-'));
  const server = await startKubeApiServer({ binDir: kubeBinDir() });
  const client = await keepAliveClient(server.kubeConfig);
  const results = new Map();
  try {
    const kubeconfig = join(scratch, 'kubeconfig');
    writeFileSync(kubeconfig, server.kubeConfig.exportConfig(), { mode: 0o600 });
    for (const ns of NAMESPACES) await client.request('POST', '/api/v1/namespaces', { metadata: { name: ns } });
    let populated = 0;
    for (const n of sizes) {
      progress('memory', `kube-apiserver: creating ConfigMaps up to ${n.toLocaleString('en-US')}`);
      await createAll(populated, n, CREATE_CONCURRENCY, (i) => {
        const cm = configMap(i);
        return client.request('POST', `/api/v1/namespaces/${cm.metadata.namespace}/configmaps`, cm);
      });
      populated = n;
      const runs = new Map(CLIENT_GO_CONTENDERS.map((c) => [c.measure, []]));
      for (let round = 0; round < rounds; round++) {
        const order = round % 2 === 0 ? CLIENT_GO_CONTENDERS : [...CLIENT_GO_CONTENDERS].reverse();
        for (const c of order) {
          progress('memory', `${c.measure} at ${n.toLocaleString('en-US')} objects, round ${round + 1}/${rounds}`);
          const r = await runGo(binary, kubeconfig, c.strip, n);
          progress('memory', `  ${r.bytesPerObject.toFixed(0)} B/object, ${r.managedFieldsCached} cached with managedFields`);
          runs.get(c.measure).push(r);
        }
      }
      for (const c of CLIENT_GO_CONTENDERS) {
        const rs = runs.get(c.measure);
        results.set(`${c.measure}@${n}`, { bytesPerObject: median(rs.map((r) => r.bytesPerObject)), runs: rs });
      }
    }
  } finally {
    client.close();
    await server.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
  return results;
}
