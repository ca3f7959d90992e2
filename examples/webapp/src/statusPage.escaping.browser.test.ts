import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { instrumentContainer, MetricsServer, type StatusPageSource } from '@protean/metrics';
import { Container } from 'inversify';
import type { BrowserPage } from './browser/BrowserPage.js';
import type { HeadlessChromium } from './browser/HeadlessChromium.js';
import { launchForTest } from './browser/launchForTest.js';
import { screenshotDir } from './browser/screenshotDir.js';

/** Markup that would run script or add elements if any of it were parsed as HTML. */
const HOSTILE =
  '<img src=x onerror="document.body.dataset.pwned=1"><b id="injected">bold</b></td><script>document.body.dataset.pwned=2</script>';

/** A status in which every string the page renders is hostile markup. */
function hostileStatus(): unknown {
  const now = Date.now();
  const at = new Date(now).toISOString();
  const inAMoment = new Date(now + 1500).toISOString();
  const watch = {
    kind: 'collection',
    nodeId: HOSTILE,
    gvr: `/v1/${HOSTILE}`,
    namespace: HOSTILE,
    selector: `app=${HOSTILE}`,
    committed: true,
  };
  return {
    generatedAt: at,
    started: true,
    leading: true,
    parents: [{ gvr: `x/v1/${HOSTILE}`, synced: true, instances: 1 }],
    informers: [
      { gvr: `/v1/${HOSTILE}`, objects: 1, owners: [HOSTILE], watchers: [HOSTILE], synced: true, state: HOSTILE, problem: HOSTILE },
    ],
    instances: [
      {
        parent: `x/v1/${HOSTILE}`,
        namespace: HOSTILE,
        name: HOSTILE,
        watches: [{ kind: 'scalar', nodeId: HOSTILE, gvr: `/v1/${HOSTILE}`, namespace: HOSTILE, name: HOSTILE, committed: true }, watch],
      },
    ],
    permissions: {
      denied: [HOSTILE],
      rows: [{ resource: HOSTILE, verb: HOSTILE, namespaces: [HOSTILE, ''], denied: [HOSTILE], messages: [HOSTILE] }],
    },
    webhooks: {
      listening: true,
      url: HOSTILE,
      routes: [{ path: HOSTILE, type: HOSTILE, reviews: 3, allowed: 1, denied: 1, failed: 1, malformed: 0 }],
    },
    recentPasses: {
      tracing: true,
      limit: 50,
      passes: [
        {
          traceId: HOSTILE,
          spanId: HOSTILE,
          parent: HOSTILE,
          namespace: HOSTILE,
          name: HOSTILE,
          attempt: 1,
          outcome: HOSTILE,
          startedAt: at,
          durationMs: 20,
          error: HOSTILE,
          watches: [HOSTILE],
          triggers: [
            {
              source: HOSTILE,
              gvr: HOSTILE,
              namespace: HOSTILE,
              name: HOSTILE,
              type: HOSTILE,
              resourceVersion: HOSTILE,
              watches: [HOSTILE],
            },
          ],
          triggersDropped: 0,
          spans: [{ name: HOSTILE, spanId: HOSTILE, offsetMs: 5, durationMs: 10, error: HOSTILE }],
          spansDropped: 0,
        },
      ],
    },
    queue: {
      depth: 0,
      workers: 1,
      reconcileTimeoutMs: 0,
      inFlight: [{ parent: HOSTILE, namespace: HOSTILE, name: HOSTILE, startedAt: at, ageMs: 5 }],
      recentFailures: [
        {
          parent: HOSTILE,
          namespace: HOSTILE,
          name: HOSTILE,
          at,
          error: HOSTILE,
          reason: HOSTILE,
          failures: 2,
          nextRetryAt: inAMoment,
          dropped: false,
        },
      ],
    },
  };
}

describe('status page in Chromium: escaping and polling', () => {
  let browser: HeadlessChromium;
  let server: MetricsServer;
  let page: BrowserPage;
  let statusCalls = 0;

  beforeAll(async () => {
    const source: StatusPageSource = {
      status: () => {
        statusCalls += 1;
        return hostileStatus();
      },
      explain: (query) => ({
        object: { gvr: `/v1/${HOSTILE}`, namespace: query.namespace, name: query.name, labels: { [HOSTILE]: HOSTILE }, source: 'given' },
        routes: [{ parent: HOSTILE, instance: HOSTILE, watch: { kind: 'parent', gvr: HOSTILE, namespace: HOSTILE, name: HOSTILE } }],
        misses: [
          {
            parent: HOSTILE,
            instance: HOSTILE,
            watch: { kind: 'scalar', nodeId: HOSTILE, gvr: HOSTILE, namespace: '', name: HOSTILE },
            field: HOSTILE,
            reason: HOSTILE,
          },
        ],
      }),
    };
    const { registry } = instrumentContainer(new Container(), { processMetrics: false });
    server = await MetricsServer.start({ registry, statusPage: source });
    browser = await launchForTest();
    page = await browser.newPage();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('shows names, labels, watches and errors as text: no markup from the data becomes an element or runs', async () => {
    await page.goto(`${server.url}/statusz`);
    await page.waitFor('the first refresh', `document.body.dataset.refreshes >= '1'`);
    await page.type('input[name=gvr]', '/v1/configmaps');
    await page.type('input[name=namespace]', 'ns');
    await page.type('input[name=name]', 'a');
    await page.type('input[name=labels]', 'app=a');
    await page.click('#explain-submit');
    await page.waitFor('the explanation', `document.body.dataset.explains === '1'`);
    // Give an injected handler a refresh to fire.
    await page.waitFor('a second refresh', `Number(document.body.dataset.refreshes) >= 2`);

    const seen = await page.evaluate<{
      imgs: number;
      scripts: number;
      injected: boolean;
      pwned: string | null;
      cells: number;
      text: string;
    }>(`({
      imgs: document.querySelectorAll('img').length,
      scripts: document.querySelectorAll('script').length,
      injected: document.getElementById('injected') !== null,
      pwned: document.body.dataset.pwned ?? null,
      cells: [...document.querySelectorAll('td, li, text, code')].filter((e) => e.textContent.includes('<img src=x')).length,
      text: document.body.innerText,
    })`);
    expect(seen).toMatchObject({ imgs: 0, scripts: 1, injected: false, pwned: null });
    // The markup is there, as text, in every table, the watch list, the picture and the explanation.
    expect(seen.cells).toBeGreaterThanOrEqual(20);
    expect(seen.text).toContain('<b id="injected">bold</b>');
    // The permissions section too: its refusal summary and its row, marked refused.
    expect(await page.evaluate('document.getElementById("permissions-summary").textContent')).toBe(`1 refused now: ${HOSTILE}`);
    expect(await page.evaluate('[...document.querySelectorAll("#permissions tbody tr.denied td")].map((td) => td.textContent)')).toEqual([
      HOSTILE,
      HOSTILE,
      `${HOSTILE}, cluster-wide`,
      `forbidden in ${HOSTILE}${HOSTILE}`,
    ]);
    // The webhooks section: its summary and its row (a failure marks it), as text.
    expect(await page.evaluate('document.getElementById("webhooks-summary").textContent')).toBe(`listening at ${HOSTILE}`);
    expect(await page.evaluate('[...document.querySelectorAll("#webhooks tbody tr.denied td")].map((td) => td.textContent)')).toEqual([
      HOSTILE,
      HOSTILE,
      '3',
      '1',
      '1',
      '1',
      '0',
    ]);
    // The recent pass: its heading, its span bars' labels and its trigger, as text.
    const pass = await page.evaluate<{ heading: string; labels: string[]; trigger: string }>(`(() => {
      const p = document.querySelector('#passes > div.pass');
      return {
        heading: p.querySelector('.instance').textContent,
        labels: [...p.querySelectorAll('g.span-row')].map((g) => g.dataset.name),
        trigger: p.querySelector('ul.triggers li').textContent,
      };
    })()`);
    expect(pass.heading).toBe(`${HOSTILE} ${HOSTILE}/${HOSTILE}`);
    expect(pass.labels).toEqual(['pass', HOSTILE]);
    expect(pass.trigger).toContain(`${HOSTILE} · ${HOSTILE}/${HOSTILE} · rv ${HOSTILE} · matched watch ${HOSTILE}`);
    // Next retry, relative to the status's own time.
    expect(await page.evaluate('document.querySelector("#failures tbody tr td:nth-child(7)").textContent')).toBe('in 1.5 s');
    await page.screenshot(join(screenshotDir(), 'status-page-escaping.png'));
    expect(page.problems).toEqual([]);
  });

  it('stops polling while the tab is hidden and starts again when it is shown', async () => {
    await page.waitFor('polling', `Number(document.body.dataset.refreshes) >= 1`);
    const setHidden = (hidden: boolean): Promise<unknown> =>
      page.evaluate(`(() => {
        Object.defineProperty(document, 'hidden', { configurable: true, get: () => ${hidden} });
        Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => '${hidden ? 'hidden' : 'visible'}' });
        document.dispatchEvent(new Event('visibilitychange'));
      })()`);
    await setHidden(true);
    // A poll already sent may still land; after that, nothing for three poll intervals.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const whileHidden = statusCalls;
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    expect(statusCalls).toBe(whileHidden);
    // Hiding cleared the timer: only the visibilitychange handler can start polling again.
    await setHidden(false);
    const resumed = performance.now() + 10_000;
    while (statusCalls === whileHidden && performance.now() < resumed) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(statusCalls).toBeGreaterThan(whileHidden);
  });
});
