import { beforeAll, describe, expect, it } from '@jest/globals';
import { silentLogger } from '@protean/core';
import { runDemo } from './runDemo.js';
import type { DemoSummary } from './summary.js';

/** The lines of step `n` (its `--- step n/...` header up to the next header), without their timestamps. */
function stepLines(lines: readonly string[], n: number): string[] {
  const text = lines.map((l) => l.replace(/^\[\s*[\d.]+s\] /, ''));
  const start = text.findIndex((l) => l.startsWith(`--- step ${n}/`));
  const end = text.findIndex((l, i) => i > start && l.startsWith('--- step '));
  return text.slice(start, end === -1 ? undefined : end);
}

describe('runDemo (the whole scripted scenario, in process)', () => {
  const lines: string[] = [];
  let summary: DemoSummary;

  beforeAll(async () => {
    summary = await runDemo({ out: (line) => lines.push(line), logger: silentLogger(), stepTimeoutMs: 30_000 });
  }, 180_000);

  it('converges every step and reports sane numbers in its summary', () => {
    expect(summary.steps.filter((s) => !s.ok)).toEqual([]);
    expect(summary.ok).toBe(true);
    expect(summary.steps).toHaveLength(12);
    // Both kinds reconciled; reconciles come from the /metrics scrape.
    expect(summary.reconciles.byGvr['demo.protean.dev/v1alpha1/webapps']).toBeGreaterThan(0);
    expect(summary.reconciles.byGvr['demo.protean.dev/v1alpha1/websites']).toBeGreaterThan(0);
    expect(summary.reconciles.total).toBe(Object.values(summary.reconciles.byGvr).reduce((a, b) => a + b, 0));
    expect(summary.handlerErrors).toBe(0);
    // Informers follow the kinds: webapps and configmaps (cached) on register, +websites on register, -webapps on
    // deregister; configmaps stays while a registration caches it.
    const informersAfter = (name: string): number | undefined => summary.steps.find((s) => s.name === name)?.activeInformers;
    expect(informersAfter('define WebApp and register it')).toBe(2);
    expect(informersAfter('create three WebApps')).toBe(2);
    expect(informersAfter('define WebSite and register it')).toBe(3);
    expect(informersAfter('deregister WebApp')).toBe(2);
    expect(summary.activeInformers).toEqual({ count: 2, gvrs: ['/v1/configmaps', 'demo.protean.dev/v1alpha1/websites'] });
    expect(summary.registeredGvrs).toEqual(['demo.protean.dev/v1alpha1/websites']);
    expect(summary.queueDepth).toBe(0);
    // Every change the scenario made was followed by a reconcile of each instance it affects.
    expect(summary.latency.count).toBe(11);
    expect(summary.scraped.some((l) => l.startsWith('dynamic_controller_reconcile_total{'))).toBe(true);
    // The printed summary is the last thing written.
    expect(lines).toContain('=== Summary ===');
    expect(lines.some((l) => l.startsWith('result:') && l.includes('converged: all 12 steps'))).toBe(true);
  });

  it("prints a step's ok lines after the handler lines they rest on", () => {
    // Step 11 deletes the WebSite: its watches go at the delete event, before its handler runs and says so.
    const deleteWebSite = stepLines(lines, 11);
    const gone = deleteWebSite.indexOf('website team-b/portal is gone: its child watches are released');
    expect(gone).toBeGreaterThan(0);
    expect(deleteWebSite.indexOf('    ok: 0 instance(s) hold child watches')).toBeGreaterThan(gone);
    // Step 6 relabels docs' ConfigMap away: the handler's apply restores the label before the pass ends.
    const relabel = stepLines(lines, 6);
    const restored = relabel.indexOf('webapp team-b/docs reconciled: configmap updated, count=1, generation 1');
    expect(restored).toBeGreaterThan(0);
    expect(relabel.indexOf('    ok: webapp team-b/docs converged (count=1)')).toBeGreaterThan(restored);
  });
});
