import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { BrowserPage } from './BrowserPage.js';
import { CdpConnection } from './CdpConnection.js';

/** Options of {@link HeadlessChromium.launch}. */
export interface LaunchOptions {
  /** The browser executable (see `findChromium`). */
  readonly executable: string;
  /** Viewport of every page; default 1280 × 900. */
  readonly width?: number;
  readonly height?: number;
}

/**
 * A headless Chromium driven over the DevTools protocol on a pipe (no
 * debugging port, no downloaded browser, no dependency): a throwaway
 * profile, no first-run, sync or background traffic. As root (in a
 * container) it runs without the sandbox, which Chromium refuses to start
 * there otherwise.
 */
export class HeadlessChromium {
  private constructor(
    private readonly child: ChildProcess,
    private readonly cdp: CdpConnection,
    private readonly profileDir: string,
    private readonly viewport: { readonly width: number; readonly height: number },
    /** Everything the browser wrote to stderr, for failure messages. */
    private readonly stderr: string[],
  ) {}

  static async launch(options: LaunchOptions): Promise<HeadlessChromium> {
    const profileDir = mkdtempSync(join(tmpdir(), 'protean-chromium-'));
    const viewport = { width: options.width ?? 1280, height: options.height ?? 900 };
    const args = [
      '--headless=new',
      '--remote-debugging-pipe',
      `--user-data-dir=${profileDir}`,
      '--no-first-run',
      '--no-default-browser-check',
      '--disable-gpu',
      '--disable-extensions',
      '--disable-background-networking',
      '--disable-sync',
      '--disable-component-update',
      '--disable-default-apps',
      '--metrics-recording-only',
      '--mute-audio',
      '--hide-scrollbars',
      `--window-size=${viewport.width},${viewport.height}`,
      ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []),
      'about:blank',
    ];
    const child = spawn(options.executable, args, { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] });
    const stderr: string[] = [];
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => stderr.push(chunk));
    const cdp = new CdpConnection(child.stdio[3] as Writable, child.stdio[4] as Readable);
    const exited = new Promise<never>((_, reject) => {
      child.once('error', (err) => reject(new Error(`cannot start ${options.executable}: ${err.message}`)));
      child.once('exit', (code, signal) =>
        reject(new Error(`${options.executable} exited (${code ?? signal}) before answering: ${stderr.join('').slice(-2000)}`)),
      );
    });
    exited.catch(() => {});
    const browser = new HeadlessChromium(child, cdp, profileDir, viewport, stderr);
    try {
      await Promise.race([cdp.send('Browser.getVersion'), exited]);
    } catch (err) {
      await browser.close();
      throw err;
    }
    return browser;
  }

  /** The browser's product string, e.g. `HeadlessChrome/156.0.8078.114`. */
  async version(): Promise<string> {
    const { product } = (await this.cdp.send('Browser.getVersion')) as { product: string };
    return product;
  }

  /** Opens a new tab at `about:blank`, attached and with the page, runtime and log domains on. */
  async newPage(): Promise<BrowserPage> {
    const { targetId } = (await this.cdp.send('Target.createTarget', { url: 'about:blank' })) as { targetId: string };
    const { sessionId } = (await this.cdp.send('Target.attachToTarget', { targetId, flatten: true })) as { sessionId: string };
    return BrowserPage.attach(this.cdp, sessionId, this.viewport);
  }

  /** Closes the browser (politely, then by SIGKILL after 5 s) and removes its profile. */
  async close(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      const gone = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
      this.cdp.send('Browser.close').catch(() => {});
      const timer = setTimeout(() => this.child.kill('SIGKILL'), 5_000);
      await gone;
      clearTimeout(timer);
    }
    this.cdp.close(new Error('browser closed'));
    rmSync(this.profileDir, { recursive: true, force: true });
  }

  /** The browser's stderr so far (its own log lines). */
  log(): string {
    return this.stderr.join('');
  }
}
