import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { CdpConnection } from './CdpConnection.js';

/** Something the page reported that a test should see: an uncaught exception, a console error, a blocked resource or CSP violation. */
export interface PageProblem {
  readonly kind: 'exception' | 'console' | 'log';
  readonly text: string;
}

/** One tab, driven like a user does: navigate, read the DOM, click, type, take screenshots. */
export class BrowserPage {
  /** Problems reported since the page was opened. */
  readonly problems: PageProblem[] = [];

  private constructor(
    private readonly cdp: CdpConnection,
    private readonly sessionId: string,
  ) {}

  static async attach(cdp: CdpConnection, sessionId: string, viewport: { width: number; height: number }): Promise<BrowserPage> {
    const page = new BrowserPage(cdp, sessionId);
    cdp.on('Runtime.exceptionThrown', (params, session) => {
      if (session !== sessionId) return;
      const details = params['exceptionDetails'] as { text?: string; exception?: { description?: string } } | undefined;
      page.problems.push({ kind: 'exception', text: details?.exception?.description ?? details?.text ?? 'exception' });
    });
    cdp.on('Runtime.consoleAPICalled', (params, session) => {
      if (session !== sessionId || params['type'] !== 'error') return;
      const args = (params['args'] as { value?: unknown; description?: string }[] | undefined) ?? [];
      page.problems.push({ kind: 'console', text: args.map((a) => String(a.value ?? a.description)).join(' ') });
    });
    cdp.on('Log.entryAdded', (params, session) => {
      const entry = params['entry'] as { level?: string; text?: string; url?: string } | undefined;
      if (session !== sessionId || entry?.level !== 'error') return;
      // The browser asks for /favicon.ico on its own; the server has none, which is no fault of the page.
      if (entry.url?.endsWith('/favicon.ico')) return;
      page.problems.push({ kind: 'log', text: `${entry.text ?? ''}${entry.url === undefined ? '' : ` (${entry.url})`}` });
    });
    await page.send('Page.enable');
    await page.send('Runtime.enable');
    await page.send('Log.enable');
    await page.send('Emulation.setDeviceMetricsOverride', {
      width: viewport.width,
      height: viewport.height,
      deviceScaleFactor: 1,
      mobile: false,
    });
    return page;
  }

  /** Loads `url` and resolves once its load event fired; rejects when the navigation fails. */
  async goto(url: string, timeoutMs = 15_000): Promise<void> {
    let unsubscribe = (): void => {};
    const loaded = new Promise<void>((resolve) => {
      unsubscribe = this.cdp.on('Page.loadEventFired', (_params, session) => {
        if (session === this.sessionId) resolve();
      });
    });
    try {
      const { errorText } = (await this.send('Page.navigate', { url })) as { errorText?: string };
      if (errorText !== undefined) throw new Error(`navigating to ${url} failed: ${errorText}`);
      await withTimeout(loaded, timeoutMs, `the load event of ${url}`);
    } finally {
      unsubscribe();
    }
  }

  /** Evaluates `expression` in the page (awaiting a promise) and returns its JSON value; rethrows the page's exception. */
  async evaluate<T>(expression: string): Promise<T> {
    const answer = (await this.send('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true })) as {
      result: { value?: unknown };
      exceptionDetails?: { text?: string; exception?: { description?: string } };
    };
    if (answer.exceptionDetails !== undefined) {
      const d = answer.exceptionDetails;
      throw new Error(`evaluating ${expression.slice(0, 120)} threw: ${d.exception?.description ?? d.text ?? 'an exception'}`);
    }
    return answer.result.value as T;
  }

  /**
   * Polls `expression` every 100 ms until it is truthy and returns its value;
   * on timeout, throws naming `what` and the last value seen.
   */
  async waitFor<T>(what: string, expression: string, timeoutMs = 15_000): Promise<T> {
    const deadline = performance.now() + timeoutMs;
    let last: unknown;
    for (;;) {
      last = await this.evaluate<unknown>(expression);
      if (last) return last as T;
      if (performance.now() > deadline) throw new Error(`not true within ${timeoutMs} ms: ${what} (last seen: ${JSON.stringify(last)})`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** Clicks the centre of the first element matching `selector`, as a mouse does (after scrolling it into view). */
  async click(selector: string): Promise<void> {
    const box = await this.evaluate<{ x: number; y: number } | null>(`(() => {
      const el = document.querySelector(${JSON.stringify(selector)});
      if (!el) return null;
      el.scrollIntoView({ block: 'center' });
      const r = el.getBoundingClientRect();
      return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
    })()`);
    if (box === null) throw new Error(`click: no element matches ${selector}`);
    for (const type of ['mousePressed', 'mouseReleased']) {
      await this.send('Input.dispatchMouseEvent', { type, x: box.x, y: box.y, button: 'left', clickCount: 1 });
    }
  }

  /** Focuses the element matching `selector`, clears it and types `text` into it. */
  async type(selector: string, text: string): Promise<void> {
    const found = await this.evaluate<boolean>(`(() => {
      const el = document.querySelector(${JSON.stringify(selector)});
      if (!el) return false;
      el.focus();
      el.select?.();
      return true;
    })()`);
    if (!found) throw new Error(`type: no element matches ${selector}`);
    // Typing over a selection replaces it; an empty text clears the field.
    if (text === '')
      await this.send('Input.dispatchKeyEvent', { type: 'keyDown', key: 'Backspace', code: 'Backspace', windowsVirtualKeyCode: 8 });
    else await this.send('Input.insertText', { text });
  }

  /** Picks the option `value` of the `<select>` matching `selector`, firing `change` as a user's choice does. */
  async select(selector: string, value: string): Promise<void> {
    const ok = await this.evaluate<boolean>(`(() => {
      const el = document.querySelector(${JSON.stringify(selector)});
      if (!el || ![...el.options].some((o) => o.value === ${JSON.stringify(value)})) return false;
      el.value = ${JSON.stringify(value)};
      el.dispatchEvent(new Event('change', { bubbles: true }));
      return true;
    })()`);
    if (!ok) throw new Error(`select: ${selector} has no option ${JSON.stringify(value)}`);
  }

  /**
   * Writes a PNG of the whole page (not only the viewport) to `file`, or of
   * the element `selector` matches, at most `maxHeightPx` of it from its top;
   * returns its size in bytes.
   */
  async screenshot(file: string, part: { selector?: string; maxHeightPx?: number } = {}): Promise<number> {
    let clip: { x: number; y: number; width: number; height: number };
    if (part.selector === undefined) {
      const { cssContentSize } = (await this.send('Page.getLayoutMetrics')) as { cssContentSize: { width: number; height: number } };
      clip = { x: 0, y: 0, width: cssContentSize.width, height: cssContentSize.height };
    } else {
      const box = await this.evaluate<typeof clip | null>(`(() => {
        const e = document.querySelector(${JSON.stringify(part.selector)});
        if (e === null) return null;
        const r = e.getBoundingClientRect();
        return { x: r.left + scrollX, y: r.top + scrollY, width: r.width, height: r.height };
      })()`);
      if (box === null) throw new Error(`screenshot: nothing matches ${part.selector}`);
      clip = box;
    }
    const height = Math.min(clip.height, part.maxHeightPx ?? Infinity);
    const { data } = (await this.send('Page.captureScreenshot', {
      format: 'png',
      captureBeyondViewport: true,
      clip: { x: Math.floor(clip.x), y: Math.floor(clip.y), width: Math.ceil(clip.width), height: Math.ceil(height), scale: 1 },
    })) as { data: string };
    const png = Buffer.from(data, 'base64');
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, png);
    return png.length;
  }

  private send(method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    return this.cdp.send(method, params, this.sessionId);
  }
}

async function withTimeout<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)), timeoutMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
