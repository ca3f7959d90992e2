import { join } from 'node:path';
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
const WEBSITES = 'demo.protean.dev/v1alpha1/websites';
const CONFIGMAPS = '/v1/configmaps';

interface Row {
  readonly key: string;
  readonly cells: string[];
}

/** The rows of a table of the page, as text, with the row's data-instance or data-gvr key. */
const rowsOf = (page: BrowserPage, table: string): Promise<Row[]> =>
  page.evaluate<Row[]>(`[...document.querySelectorAll('#${table} tbody tr:not(.empty)')].map((tr) => ({
    key: tr.dataset.instance ?? tr.dataset.gvr ?? '',
    cells: [...tr.children].map((td) => td.innerText.trim()),
  }))`);

/** The pictured instance's nodes: kind, verdict and text. */
const pictureOf = (page: BrowserPage): Promise<{ instance: string; nodes: { kind: string; verdict: string; text: string }[] }> =>
  page.evaluate(`({
    instance: document.getElementById('picture').getAttribute('data-instance'),
    nodes: [...document.querySelectorAll('#picture g.node')].map((g) => ({
      kind: g.dataset.kind,
      verdict: g.dataset.verdict ?? 'none',
      text: [...g.querySelectorAll(':scope > text')].map((t) => t.textContent).join(' | '),
    })),
  })`);

describe('the status page of `pnpm demo -- --hold`, in headless Chromium', () => {
  const stop = new AbortController();
  const out: string[] = [];
  let exit: Promise<number>;
  let held: HeldDemo;
  let browser: HeadlessChromium;
  let page: BrowserPage;
  let shots: string;

  beforeAll(async () => {
    shots = screenshotDir();
    let onHold: (h: HeldDemo) => void = () => {};
    const holding = new Promise<HeldDemo>((resolve) => (onHold = resolve));
    exit = runCli(['--in-memory', '--hold'], {
      out: (line) => out.push(line),
      err: (line) => out.push(`stderr: ${line}`),
      env: {},
      stop: stop.signal,
      logDestination: { write: () => {} },
      onDemoHold: (h) => onHold(h),
    });
    // The scripted scenario runs first (about 10 s); a failed run never holds.
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

  it('prints the page address, and shows the parents, the informers and the three WebApps with their declared watches', async () => {
    expect(held.statusPageUrl).toBe(`${held.metricsUrl}/statusz`);
    // Printed when the metrics server starts, and again when the demo holds (after the summary).
    expect(out.filter((l) => l.endsWith(`] status page: ${held.statusPageUrl}`))).toHaveLength(2);
    await page.goto(held.statusPageUrl ?? '');

    const expectedInstances = [
      {
        key: `${WEBAPPS} team-a/blog`,
        watches: ['config: scalar /v1/configmaps team-a/blog-config', 'labelled: collection /v1/configmaps in team-a, selector app=blog'],
      },
      {
        key: `${WEBAPPS} team-a/shop`,
        watches: ['config: scalar /v1/configmaps team-a/shop-config', 'labelled: collection /v1/configmaps in team-a, selector app=shop'],
      },
      {
        key: `${WEBAPPS} team-b/docs`,
        watches: ['config: scalar /v1/configmaps team-b/docs-config', 'labelled: collection /v1/configmaps in team-b, selector app=docs'],
      },
    ];
    // Until every instance's pass has committed its watches, the page shows some as pending or none.
    await page.waitFor(
      'the instances table lists the three WebApps with their committed watches',
      `JSON.stringify([...document.querySelectorAll('#instances tbody tr[data-instance]')].map((tr) => ({
        key: tr.dataset.instance,
        watches: [...tr.querySelectorAll('li')].map((li) => li.textContent),
      }))) === ${JSON.stringify(JSON.stringify(expectedInstances))}`,
    );

    await page.waitFor('both parents synced', `document.querySelectorAll('#parents tbody tr .yes').length === 2`);
    expect(await rowsOf(page, 'parents')).toEqual([
      // In registration order: WebApp was registered again after the scenario.
      { key: '', cells: [WEBSITES, 'yes', '0'] },
      { key: '', cells: [WEBAPPS, 'yes', '3'] },
    ]);

    const configMaps = await held.kubeConfig.makeApiClient(CoreV1Api).listConfigMapForAllNamespaces({}, requestOptions(stop.signal));
    const informers = await rowsOf(page, 'informers');
    expect(informers.map((r) => r.key).sort()).toEqual([CONFIGMAPS, WEBAPPS, WEBSITES]);
    const byGvr = new Map(informers.map((r) => [r.key, r.cells]));
    // gvr, health, objects, owners, watched by, problem: the object counts are the API server's.
    expect(byGvr.get(CONFIGMAPS)?.slice(0, 3)).toEqual([CONFIGMAPS, 'healthy', String(configMaps.items.length)]);
    expect(byGvr.get(CONFIGMAPS)?.[4]).toBe('3 instances');
    expect(byGvr.get(WEBAPPS)?.slice(0, 3)).toEqual([WEBAPPS, 'healthy', '3']);
    expect(await page.evaluate('document.getElementById("queue-summary").textContent')).toMatch(/^depth 0 · 0 in flight · 2 workers$/);
    expect(await rowsOf(page, 'failures')).toEqual([]);

    // The permissions the controller used on its connection (the in-memory server refuses nothing).
    const permissions = await page.evaluate<{ resource: string; verb: string; where: string; answer: string; denied: boolean }[]>(
      `[...document.querySelectorAll('#permissions tbody tr[data-resource]')].map((tr) => ({
        resource: tr.dataset.resource, verb: tr.dataset.verb, where: tr.children[2].innerText.trim(),
        answer: tr.children[3].innerText.trim(), denied: tr.classList.contains('denied'),
      }))`,
    );
    const used = (resource: string): string[] => permissions.filter((p) => p.resource === resource).map((p) => `${p.verb} ${p.where}`);
    expect(permissions.length).toBeGreaterThan(0);
    expect(permissions.filter((p) => p.denied || p.answer !== 'allowed')).toEqual([]);
    expect(used('webapps.demo.protean.dev')).toContain('watch cluster-wide');
    expect(used('configmaps')).toContain('watch cluster-wide');
    expect(used('webapps.demo.protean.dev/status').map((u) => u.split(' ')[0])).toEqual(['patch']);
    expect(await page.evaluate('document.getElementById("permissions-summary").textContent')).toBe(
      'no access refused; JSON at /statusz/permissions',
    );
    await page.screenshot(join(shots, 'status-page-demo.png'));
    expect(page.problems).toEqual([]);
  });

  it("pictures one instance's watches: the parent, its scalar child and its collection selector", async () => {
    await page.click(`#instances tr[data-instance="${WEBAPPS} team-a/shop"] button`);
    const picture = await pictureOf(page);
    expect(picture.instance).toBe(`${WEBAPPS} team-a/shop`);
    expect(picture.nodes).toEqual([
      { kind: 'scalar', verdict: 'none', text: 'scalar /v1/configmaps | team-a/shop-config' },
      { kind: 'collection', verdict: 'none', text: 'collection /v1/configmaps | in team-a · app=shop' },
      { kind: 'parent', verdict: 'none', text: `parent ${WEBAPPS} | team-a/shop` },
    ]);
    await page.screenshot(join(shots, 'status-page-picture-shop.png'));
  });

  /** Fills the explain form as a user types it and waits for the answer. */
  async function explain(fields: { gvr: string; namespace: string; name: string; labels: string }): Promise<void> {
    const before = await page.evaluate<string | undefined>('document.body.dataset.explains');
    for (const [name, value] of Object.entries(fields)) await page.type(`#explain-form input[name=${name}]`, value);
    await page.click('#explain-submit');
    await page.waitFor('the explanation', `(document.body.dataset.explains ?? null) !== ${JSON.stringify(before ?? null)}`);
    const error = await page.evaluate<string>('document.getElementById("explain-error").textContent');
    if (error !== '' && fields.name !== 'missing') throw new Error(`the page shows an explain error: ${error}`);
  }

  it('explains a ConfigMap read from the cache: it routes to the WebApp whose selector it matches and says why not the others', async () => {
    // The scenario relabelled shop-extra from app=shop to app=blog.
    await explain({ gvr: CONFIGMAPS, namespace: 'team-a', name: 'shop-extra', labels: '' });
    expect(await page.evaluate('document.getElementById("explain-object").textContent')).toBe(
      'object /v1/configmaps team-a/shop-extra labels app=blog (read from the cache; refreshed live)',
    );
    expect(await rowsOf(page, 'explain-routes')).toEqual([
      { key: '', cells: [WEBAPPS, 'team-a/blog', 'labelled: collection /v1/configmaps in team-a, selector app=blog'] },
    ]);
    const misses = await rowsOf(page, 'explain-misses');
    const miss = (instance: string, node: string): string[] | undefined =>
      misses.find((r) => r.cells[1] === instance && r.cells[2]?.startsWith(`${node}:`))?.cells.slice(3);
    expect(misses).toHaveLength(5);
    expect(miss('team-a/shop', 'labelled')?.[0]).toBe('selector');
    expect(miss('team-a/shop', 'labelled')?.[1]).toMatch(/app.*blog.*shop/);
    expect(miss('team-a/shop', 'config')?.[0]).toBe('name');
    expect(miss('team-a/blog', 'config')?.[0]).toBe('name');
    expect(miss('team-b/docs', 'labelled')?.[0]).toBe('namespace');
    expect(miss('team-b/docs', 'config')?.[0]).toBe('namespace');

    // The picture of shop marks its collection watch as the one that misses, with the reason.
    const picture = await pictureOf(page);
    expect(picture.nodes.find((n) => n.kind === 'collection')).toMatchObject({ verdict: 'miss' });
    expect(picture.nodes.find((n) => n.kind === 'collection')?.text).toMatch(/✗ selector: .*blog/);
    expect(picture.nodes.find((n) => n.kind === 'scalar')).toMatchObject({ verdict: 'miss' });
    await page.screenshot(join(shots, 'status-page-explain-before-relabel.png'));
  });

  it('follows a relabel live: after app=blog becomes app=shop the same explanation routes to shop and misses blog', async () => {
    await held.kubeConfig
      .makeApiClient(CoreV1Api)
      .patchNamespacedConfigMap(
        { namespace: 'team-a', name: 'shop-extra', body: { metadata: { labels: { app: 'shop' } } } },
        requestOptions(stop.signal, 'merge'),
      );
    // No click: the page re-asks with every refresh while the labels come from the cache.
    await page.waitFor('the explanation follows the new label', `document.getElementById('explain-labels').textContent === 'app=shop'`);
    expect(await rowsOf(page, 'explain-routes')).toEqual([
      { key: '', cells: [WEBAPPS, 'team-a/shop', 'labelled: collection /v1/configmaps in team-a, selector app=shop'] },
    ]);
    const blogMiss = (await rowsOf(page, 'explain-misses')).find(
      (r) => r.cells[1] === 'team-a/blog' && r.cells[2]?.startsWith('labelled:'),
    );
    expect(blogMiss?.cells[3]).toBe('selector');
    expect(blogMiss?.cells[4]).toMatch(/app.*shop.*blog/);
    const picture = await pictureOf(page);
    expect(picture.nodes.find((n) => n.kind === 'collection')).toMatchObject({ verdict: 'route' });
    expect(picture.nodes.find((n) => n.kind === 'collection')?.text).toContain('✓ routes shop-extra');
    await page.screenshot(join(shots, 'status-page-explain-after-relabel.png'));
  });

  it('explains given labels that match no watch, and names an object the cache does not hold', async () => {
    await explain({ gvr: CONFIGMAPS, namespace: 'team-a', name: 'stray', labels: 'app=nobody' });
    expect(await page.evaluate('document.getElementById("explain-object").textContent')).toBe(
      'object /v1/configmaps team-a/stray labels app=nobody (as given)',
    );
    expect(await rowsOf(page, 'explain-routes')).toEqual([]);
    const misses = await rowsOf(page, 'explain-misses');
    expect(misses.filter((r) => r.cells[3] === 'selector').map((r) => r.cells[1])).toEqual(['team-a/blog', 'team-a/shop']);
    expect(await pictureOf(page).then((p) => p.nodes.find((n) => n.kind === 'collection')?.verdict)).toBe('miss');

    await explain({ gvr: CONFIGMAPS, namespace: 'team-a', name: 'missing', labels: '' });
    expect(await page.evaluate('document.getElementById("explain-result").hidden')).toBe(true);
    expect(await page.evaluate('document.getElementById("explain-error").textContent')).toBe(
      "cannot explain the routing of /v1/configmaps team-a/missing: it is not in the /v1/configmaps informer's cache; pass labels",
    );
    await page.screenshot(join(shots, 'status-page-explain-not-cached.png'));
    // The browser logs each 404 answer; those of the explanation just shown are the only problems.
    expect(new Set(page.problems.map((p) => p.text.replace(/http:\/\/[^/]+/, '')))).toEqual(
      new Set([
        'Failed to load resource: the server responded with a status of 404 (Not Found) (/statusz/explain?gvr=%2Fv1%2Fconfigmaps&namespace=team-a&name=missing)',
      ]),
    );
  });
});
