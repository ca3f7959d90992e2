import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { BrowserPage } from './browser/BrowserPage.js';
import type { HeadlessChromium } from './browser/HeadlessChromium.js';
import { launchForTest } from './browser/launchForTest.js';
import { screenshotDir } from './browser/screenshotDir.js';
import { requestOptions } from './requestOptions.js';
import type { HeldDemo } from './runDemo.js';
import { runCli } from './runCli.js';

const WEBAPPS = 'demo.protean.dev/v1alpha1/webapps';

/** The docs' picture of the waterfall, refreshed by a run with `PROTEAN_DOCS_SCREENSHOTS=1`. */
const DOCS_SCREENSHOT = fileURLToPath(new URL('../../../docs/images/status-page-waterfall.png', import.meta.url));

interface PassView {
  readonly instance: string;
  readonly outcome: string;
  readonly bars: { span: string; name: string; x: number; width: number }[];
  readonly triggers: { source: string; text: string }[];
}

/** The Recent passes section as drawn: each pass's heading, its bars (pass first) and its triggers. */
const passesOf = (page: BrowserPage): Promise<PassView[]> =>
  page.evaluate<PassView[]>(`[...document.querySelectorAll('#passes > div.pass')].map((p) => ({
    instance: p.querySelector('.instance').textContent,
    outcome: p.dataset.outcome,
    bars: [...p.querySelectorAll('g.span-row')].map((g) => ({
      span: g.dataset.span,
      name: g.dataset.name,
      x: Number(g.querySelector('rect').getAttribute('x')),
      width: Number(g.querySelector('rect').getAttribute('width')),
    })),
    triggers: [...p.querySelectorAll('ul.triggers li')].map((li) => ({ source: li.dataset.source ?? '', text: li.textContent })),
  }))`);

describe('the status page of `pnpm demo -- --hold --trace`: the recent passes as a waterfall, in headless Chromium', () => {
  const stop = new AbortController();
  const out: string[] = [];
  let exit: Promise<number>;
  let held: HeldDemo;
  let browser: HeadlessChromium;
  let page: BrowserPage;

  beforeAll(async () => {
    let onHold: (h: HeldDemo) => void = () => {};
    const holding = new Promise<HeldDemo>((resolve) => (onHold = resolve));
    exit = runCli(['--in-memory', '--hold', '--trace'], {
      out: (line) => out.push(line),
      err: (line) => out.push(`stderr: ${line}`),
      env: {},
      stop: stop.signal,
      logDestination: { write: () => {} },
      onDemoHold: (h) => onHold(h),
    });
    held = await Promise.race([
      holding,
      exit.then((code) => Promise.reject(new Error(`the demo exited ${code} before holding:\n${out.join('\n')}`))),
    ]);
    browser = await launchForTest();
    page = await browser.newPage();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    stop.abort(new Error('test done'));
    expect(await exit).toBe(0);
  });

  it("draws each pass's span and its client requests as bars from its start, with the routed event and the watch it matched", async () => {
    await page.goto(held.statusPageUrl ?? '');
    await page.waitFor('the first refresh', `document.body.dataset.refreshes >= '1'`);
    // A child change: shop-extra (labelled app=blog by the scenario) is relabelled app=shop, so shop's collection watch matches it.
    await held.kubeConfig
      .makeApiClient(CoreV1Api)
      .patchNamespacedConfigMap(
        { namespace: 'team-a', name: 'shop-extra', body: { metadata: { labels: { app: 'shop' } } } },
        requestOptions(stop.signal, 'merge'),
      );
    await page.waitFor(
      "shop's pass for the relabel",
      `[...document.querySelectorAll('#passes ul.triggers li[data-source=live]')].some((li) => li.textContent.includes('team-a/shop-extra'))`,
    );
    const summary = await page.evaluate<string>('document.getElementById("passes-summary").textContent');
    expect(summary).toMatch(/^the last \d+ of at most 50 passes, newest first/);

    const passes = await passesOf(page);
    expect(passes.length).toBeGreaterThanOrEqual(4);
    for (const pass of passes) {
      expect(pass.instance).toMatch(/^demo\.protean\.dev\/v1alpha1\/web(apps|sites) team-[ab]\/\w+$/);
      // The pass's own bar first, spanning the track from its start; its children start at or after it.
      expect(pass.bars[0]?.span).toBe('pass');
      for (const bar of pass.bars.slice(1)) expect(bar.x).toBeGreaterThanOrEqual(pass.bars[0]!.x);
    }
    const relabel = passes.find((p) => p.triggers.some((t) => t.source === 'live' && t.text.includes('team-a/shop-extra')));
    expect(relabel?.instance).toBe(`${WEBAPPS} team-a/shop`);
    expect(relabel?.outcome).toBe('success');
    expect(relabel?.triggers.find((t) => t.text.includes('shop-extra'))?.text).toMatch(
      /^live · update · \/v1\/configmaps · team-a\/shop-extra · rv \d+ · matched watch labelled$/,
    );
    // Its requests to the API server (the ConfigMap apply, the status write) as child bars.
    const children = relabel?.bars.filter((b) => b.span === 'child').map((b) => b.name) ?? [];
    expect(children).toEqual(expect.arrayContaining([expect.stringMatching(/^APPLY configmaps$/)]));
    // The first passes of the hold were triggered by the initial list of the WebApps.
    expect(passes.some((p) => p.triggers.some((t) => t.source === 'initial-list'))).toBe(true);

    await page.screenshot(join(screenshotDir(), 'status-page-waterfall-full.png'));
    // For the docs: the section's top, its newest passes.
    const file = join(screenshotDir(), 'status-page-waterfall.png');
    await page.screenshot(file, { selector: 'section:has(#passes)', maxHeightPx: 1100 });
    if (process.env['PROTEAN_DOCS_SCREENSHOTS'] === '1') copyFileSync(file, DOCS_SCREENSHOT);
    expect(page.problems).toEqual([]);
  });
});
