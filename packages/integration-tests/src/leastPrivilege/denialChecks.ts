// What a removed rule must cause, checked on the replica that showed it:
// /readyz?verbose names the refused verb and resource, /statusz/permissions
// lists it as denied, and the replica logged exactly one warn line for it.
// A replica that exited instead (only the sharding layout's namespace list,
// read before its metrics are set up, may make it) must have logged an
// error line naming the refusal.
import { waitFor } from '@protean/core/testing';
import type { ControllerProcess } from './controllerProcess.js';
import type { LifecycleOutcome } from './driveLifecycle.js';
import { accessResourceName, type Grant } from './rbacVariants.js';

/** The pino warn lines (level 40) the permissions check logged for refusals of `verb` on `resource`. */
export function refusalLines(replica: ControllerProcess, verb: string, resource: string): number {
  const prefix = `forbidden: ${verb} ${resource} `;
  return replica.logLines().filter((l) => l.level === 40 && typeof l.msg === 'string' && l.msg.startsWith(prefix)).length;
}

interface PermissionRow {
  resource: string;
  verb: string;
  denied: string[];
}

/**
 * What is wrong with how the controller reported the refusal of `grant`
 * (empty when everything holds). Reads the replica's endpoints, so call it
 * before the replica is stopped.
 */
export async function denialProblems(outcome: LifecycleOutcome, grant: Grant, boundMs: number): Promise<string[]> {
  if (outcome.kind === 'converged') return [];
  const resource = accessResourceName(grant);
  const named = `${grant.verb} ${resource}`;
  const problems: string[] = [];
  const { replica } = outcome;
  // The warn line is written before /readyz can say it; it may reach this process a moment later.
  await waitFor(() => refusalLines(replica, grant.verb, resource) > 0, { timeoutMs: 2_000, intervalMs: 20 }).catch(() => {});
  const lines = refusalLines(replica, grant.verb, resource);
  if (outcome.kind === 'exited') {
    const { code } = await outcome.replica.exited;
    if (code === 0) problems.push(`${replica.name} exited with 0`);
    const errors = replica.logLines().filter((l) => l.level === 50);
    const [plainResource] = grant.resource.split('/', 1) as [string];
    const namedInError = errors.filter((l) => JSON.stringify(l).includes(`cannot ${grant.verb} resource \\"${plainResource}\\"`)).length;
    if (errors.length === 0) problems.push(`${replica.name} exited without an error line`);
    else if (lines === 0 && namedInError !== 1) problems.push(`${replica.name} exited with no line naming "${named}"`);
    if (lines > 1) problems.push(`${replica.name} logged ${lines} warn lines "forbidden: ${named} ..." (expected one)`);
    return problems;
  }
  if (lines !== 1) problems.push(`${replica.name} logged ${lines} warn lines "forbidden: ${named} ..." (expected exactly one)`);
  if (outcome.sinceStepMs > boundMs)
    problems.push(`the denial showed ${Math.round(outcome.sinceStepMs)} ms after the step, over ${boundMs} ms`);
  if (!outcome.readyz.includes(`[-]permissions failed: forbidden: ${named} `)) {
    problems.push(`/readyz?verbose does not name "${named}":\n${outcome.readyz}`);
  }
  const status = await replica.get('/statusz/permissions');
  const rows = status?.status === 200 ? ((JSON.parse(status.text) as { rows?: PermissionRow[] }).rows ?? []) : [];
  if (!rows.some((r) => r.resource === resource && r.verb === grant.verb && r.denied.length > 0)) {
    problems.push(`/statusz/permissions does not show ${named} denied (${status?.status ?? 'no answer'})`);
  }
  return problems;
}
