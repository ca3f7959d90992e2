// node's heap cap against the memory limit deploy/ gives the container. node starts with
// --max-old-space-size at half that limit: the other half holds node itself, its buffers and the young
// generation (README.md, "Memory"). Raise the limit without the cap and the controller dies of "JavaScript heap
// out of memory" with the pod's memory unused; lower it alone and the kernel kills the pod before V8 collects.
// So the start script, the dev script and the image's CMD must carry one cap, and it must be half the limit.
import { readFileSync } from 'node:fs';
import { expect, it } from '@jest/globals';
import { parseAllDocuments } from 'yaml';

const read = (file: string): string => readFileSync(new URL(`../${file}`, import.meta.url), 'utf8');

interface Container {
  name: string;
  resources?: { limits?: { memory?: string | number } };
}

/** The memory limit of the controller's container in deploy/, in MiB. */
function memoryLimitMiB(): number {
  const kustomization = parseAllDocuments(read('deploy/kustomization.yaml'))[0]?.toJS() as { resources: string[] };
  const deployments = kustomization.resources
    .flatMap((file) => parseAllDocuments(read(`deploy/${file}`)).map((doc) => doc.toJS() as { kind?: string } | null))
    .filter((doc): doc is { kind: 'Deployment'; spec: { template: { spec: { containers: Container[] } } } } => doc?.kind === 'Deployment');
  expect(deployments).toHaveLength(1);
  const container = deployments[0]!.spec.template.spec.containers.find((c) => c.name === 'controller');
  const limit = container?.resources?.limits?.memory;
  if (limit === undefined) throw new Error('deploy/: the controller container has no resources.limits.memory');
  return toMiB(String(limit));
}

/** A Kubernetes memory quantity (512Mi, 1Gi, 600M, 536870912) in MiB. */
function toMiB(quantity: string): number {
  const match = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|k|M|G|T)?$/.exec(quantity);
  if (match === null) throw new Error(`deploy/: memory limit ${JSON.stringify(quantity)} is not a quantity this test reads`);
  const unit = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, k: 1e3, M: 1e6, G: 1e9, T: 1e12 }[match[2] ?? ''] ?? 1;
  return (Number(match[1]) * unit) / 2 ** 20;
}

/** The --max-old-space-size each way of starting the controller passes node. */
function heapCaps(): Record<string, string | undefined> {
  const { start, dev } = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
  const cmd = /^CMD (\[.*\])$/m.exec(read('Dockerfile'))?.[1];
  const cap = (command: string | undefined): string | undefined => /--max-old-space-size=(\d+)/.exec(command ?? '')?.[1];
  return {
    'package.json scripts.start': cap(start),
    'package.json scripts.dev': cap(dev),
    "Dockerfile's CMD": cap(cmd === undefined ? undefined : (JSON.parse(cmd) as string[]).join(' ')),
  };
}

it("starts node with its heap capped at half the container's memory limit, everywhere it starts", () => {
  const limit = memoryLimitMiB();
  const half = String(Math.floor(limit / 2));
  const wrong = Object.entries(heapCaps()).filter(([, cap]) => cap !== half);
  const fix = `deploy/ limits the container to ${limit} MiB: start node with --max-old-space-size=${half} in`;
  expect(wrong.map(([where, cap]) => `${fix} ${where} (${cap === undefined ? 'no cap' : `has ${cap}`})`)).toEqual([]);
});
