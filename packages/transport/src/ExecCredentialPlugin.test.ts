import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ExecCredentialError } from './ExecCredentialError.js';
import { ExecCredentialPlugin } from './ExecCredentialPlugin.js';
import type { KubeConfigExec } from './kubeConfigData.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'protean-exec-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const V1 = 'client.authentication.k8s.io/v1';

/**
 * A plugin script: appends one line per run to `runs` (its args, env and
 * KUBERNETES_EXEC_INFO), then prints `status` as an ExecCredential (or
 * `raw` as is, or fails with `exitCode` and `stderr`).
 */
function script(behaviour: { status?: object; raw?: string; exitCode?: number; stderr?: string; apiVersion?: string }): string {
  const file = join(dir, 'plugin.mjs');
  writeFileSync(
    file,
    `import { appendFileSync } from 'node:fs';
appendFileSync(${JSON.stringify(join(dir, 'runs'))}, JSON.stringify({ args: process.argv.slice(2), region: process.env.REGION, info: JSON.parse(process.env.KUBERNETES_EXEC_INFO) }) + '\\n');
const b = ${JSON.stringify(behaviour)};
if (b.stderr) process.stderr.write(b.stderr);
if (b.exitCode) process.exit(b.exitCode);
process.stdout.write(b.raw ?? JSON.stringify({ apiVersion: b.apiVersion ?? ${JSON.stringify(V1)}, kind: 'ExecCredential', status: b.status }));
`,
  );
  return file;
}

function runs(): { args: string[]; region?: string; info: { apiVersion: string; kind: string; spec: Record<string, unknown> } }[] {
  try {
    return readFileSync(join(dir, 'runs'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as ReturnType<typeof runs>[number]);
  } catch {
    return [];
  }
}

function exec(file: string, overrides: Partial<KubeConfigExec> = {}): KubeConfigExec {
  return {
    apiVersion: V1,
    command: process.execPath,
    args: [file, 'get-token'],
    env: [{ name: 'REGION', value: 'eu' }],
    interactiveMode: 'Never',
    provideClusterInfo: false,
    ...overrides,
  };
}

async function failure(p: Promise<unknown>): Promise<ExecCredentialError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ExecCredentialError);
  return err as ExecCredentialError;
}

describe('ExecCredentialPlugin', () => {
  it('runs the command with its args, env and KUBERNETES_EXEC_INFO, and returns the token', async () => {
    const plugin = new ExecCredentialPlugin(exec(script({ status: { token: 'tok-1' } })), { stdinIsTTY: false });
    expect(await plugin.credential()).toEqual({ token: 'tok-1' });
    expect(runs()).toEqual([
      { args: ['get-token'], region: 'eu', info: { apiVersion: V1, kind: 'ExecCredential', spec: { interactive: false } } },
    ]);
  });

  it('keeps the credential until its expirationTimestamp, then runs the plugin again', async () => {
    let now = Date.parse('2026-12-01T10:00:00Z');
    const plugin = new ExecCredentialPlugin(exec(script({ status: { token: 't', expirationTimestamp: '2026-12-01T10:05:00Z' } })), {
      now: () => now,
    });
    expect(await plugin.credential()).toEqual({ token: 't', expiresAtMs: Date.parse('2026-12-01T10:05:00Z') });
    now += 4 * 60_000;
    await plugin.credential();
    expect(runs()).toHaveLength(1);
    now += 60_000;
    await plugin.credential();
    expect(runs()).toHaveLength(2);
  });

  it('keeps a credential without expiry for good, and concurrent callers share one run', async () => {
    const plugin = new ExecCredentialPlugin(exec(script({ status: { token: 't' } })));
    const all = await Promise.all([plugin.credential(), plugin.credential(), plugin.credential()]);
    await plugin.credential();
    expect(all.map((c) => c.token)).toEqual(['t', 't', 't']);
    expect(runs()).toHaveLength(1);
  });

  it('returns a client certificate and key from the status (v1beta1)', async () => {
    const beta = 'client.authentication.k8s.io/v1beta1';
    const plugin = new ExecCredentialPlugin(
      exec(script({ apiVersion: beta, status: { clientCertificateData: 'CERT', clientKeyData: 'KEY' } }), { apiVersion: beta }),
    );
    expect(await plugin.credential()).toEqual({ clientCertificateData: 'CERT', clientKeyData: 'KEY' });
    expect(runs()[0]?.info.apiVersion).toBe(beta);
  });

  it('passes the cluster when provideClusterInfo is set', async () => {
    const plugin = new ExecCredentialPlugin(exec(script({ status: { token: 't' } }), { provideClusterInfo: true }), {
      cluster: { name: 'c', server: 'https://c:6443', insecureSkipTlsVerify: false, tlsServerName: 'api', caData: 'Q0E=' },
    });
    await plugin.credential();
    expect(runs()[0]?.info.spec).toEqual({
      interactive: false,
      cluster: { server: 'https://c:6443', 'tls-server-name': 'api', 'certificate-authority-data': 'Q0E=' },
    });
  });

  it('fails naming the command, its exit code and stderr, and runs again on the next call', async () => {
    const plugin = new ExecCredentialPlugin(exec(script({ exitCode: 3, stderr: 'login expired\n' })));
    const err = await failure(plugin.credential());
    expect(err.message).toBe(`exec credential plugin ${JSON.stringify(process.execPath)}: exited with code 3: login expired`);
    expect(err.exitCode).toBe(3);
    await failure(plugin.credential());
    expect(runs()).toHaveLength(2);
  });

  it('fails with the install hint when the command does not exist', async () => {
    const plugin = new ExecCredentialPlugin(
      exec('x', { command: join(dir, 'no-such-plugin'), installHint: 'brew install no-such-plugin' }),
    );
    const err = await failure(plugin.credential());
    expect(err.message).toBe(
      `exec credential plugin ${JSON.stringify(join(dir, 'no-such-plugin'))}: not found (is it installed and on PATH?)\nbrew install no-such-plugin`,
    );
    expect(err.command).toBe(join(dir, 'no-such-plugin'));
  });

  it.each([
    [{ raw: 'Token: abc' }, 'stdout is not JSON ("Token: abc")'],
    [{ raw: '{"kind":"Other"}' }, 'kind is "Other", not "ExecCredential"'],
    [
      { apiVersion: 'client.authentication.k8s.io/v1beta1', status: { token: 't' } },
      `apiVersion is "client.authentication.k8s.io/v1beta1", the KubeConfig asked for ${V1}`,
    ],
    [{ status: {} }, 'status has neither a token nor clientCertificateData and clientKeyData'],
    [{ status: { clientCertificateData: 'C' } }, 'status has only one of clientCertificateData and clientKeyData'],
    [{ status: { token: 't', expirationTimestamp: 'tomorrow' } }, 'status.expirationTimestamp "tomorrow" is not an RFC 3339 time'],
  ])('refuses output %j: %s', async (behaviour, detail) => {
    const err = await failure(new ExecCredentialPlugin(exec(script(behaviour))).credential());
    expect(err.message).toBe(`exec credential plugin ${JSON.stringify(process.execPath)}: printed no valid ExecCredential: ${detail}`);
  });

  it('refuses interactiveMode Always without a terminal, without running the plugin', async () => {
    const err = await failure(
      new ExecCredentialPlugin(exec(script({ status: { token: 't' } }), { interactiveMode: 'Always' }), { stdinIsTTY: false }).credential(),
    );
    expect(err.message).toContain('interactiveMode is Always but stdin is not a terminal');
    expect(runs()).toHaveLength(0);
  });
});
