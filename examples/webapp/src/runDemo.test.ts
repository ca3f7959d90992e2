import { describe, expect, it } from '@jest/globals';
import { silentLogger } from '@protean/core';
import { runDemo } from './runDemo.js';

describe('runDemo (the whole scripted scenario, in process)', () => {
  it('converges every step and reports sane numbers in its summary', async () => {
    const lines: string[] = [];

    const summary = await runDemo({ out: (line) => lines.push(line), logger: silentLogger(), stepTimeoutMs: 30_000 });

    expect(summary.steps.filter((s) => !s.ok)).toEqual([]);
    expect(summary.ok).toBe(true);
    expect(summary.steps).toHaveLength(12);
    // Both kinds reconciled; reconciles come from the /metrics scrape.
    expect(summary.reconciles.byGvr['demo.protean.dev/v1alpha1/webapps']).toBeGreaterThan(0);
    expect(summary.reconciles.byGvr['demo.protean.dev/v1alpha1/websites']).toBeGreaterThan(0);
    expect(summary.reconciles.total).toBe(Object.values(summary.reconciles.byGvr).reduce((a, b) => a + b, 0));
    expect(summary.handlerErrors).toBe(0);
    // Informers follow the kinds: +websites on register, -webapps on deregister, -configmaps once no instance watches them.
    const informersAfter = (name: string): number | undefined => summary.steps.find((s) => s.name === name)?.activeInformers;
    expect(informersAfter('create three WebApps')).toBe(2);
    expect(informersAfter('define WebSite and register it')).toBe(3);
    expect(informersAfter('deregister WebApp')).toBe(2);
    expect(summary.activeInformers).toEqual({ count: 1, gvrs: ['demo.protean.dev/v1alpha1/websites'] });
    expect(summary.registeredGvrs).toEqual(['demo.protean.dev/v1alpha1/websites']);
    expect(summary.queueDepth).toBe(0);
    // Every change the scenario made was followed by a reconcile of each instance it affects.
    expect(summary.latency.count).toBe(11);
    expect(summary.scraped.some((l) => l.startsWith('dynamic_controller_reconcile_total{'))).toBe(true);
    // The printed summary is the last thing written.
    expect(lines).toContain('=== Summary ===');
    expect(lines.some((l) => l.startsWith('result:') && l.includes('converged: all 12 steps'))).toBe(true);
  }, 180_000);
});
