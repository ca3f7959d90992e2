import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** An HTTPS server on 127.0.0.1 whose certificate is signed by a CA the client is not given, and that other CA. */
export interface WrongCaServer {
  readonly url: string;
  /** PEM of a CA that did not sign the server's certificate: what a KubeConfig with the wrong CA carries. */
  readonly otherCaPem: string;
  close(): Promise<void>;
}

function openssl(dir: string, args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
}

/** Makes a self-signed CA certificate `<name>.crt` and its key `<name>.key` in `dir`. */
function selfSignedCa(dir: string, name: string): void {
  openssl(dir, [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-sha256',
    '-days',
    '1',
    '-subj',
    `/CN=${name}`,
    '-keyout',
    `${name}.key`,
    '-out',
    `${name}.crt`,
  ]);
}

/** The PEM certificate of a fresh self-signed CA that signed nothing: the wrong CA for any server. */
export function unrelatedCaPem(): string {
  const dir = mkdtempSync(join(tmpdir(), 'protean-unrelated-ca-'));
  try {
    selfSignedCa(dir, 'unrelated-ca');
    return readFileSync(join(dir, 'unrelated-ca.crt'), 'utf8');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Starts an HTTPS server (answering 200 to anything) with a serving
 * certificate for 127.0.0.1 signed by a CA of its own, made with openssl,
 * and returns another CA's certificate: a client that trusts only that one
 * fails verification with UNABLE_TO_VERIFY_LEAF_SIGNATURE.
 */
export async function startWrongCaServer(): Promise<WrongCaServer> {
  const dir = mkdtempSync(join(tmpdir(), 'protean-wrong-ca-'));
  try {
    selfSignedCa(dir, 'server-ca');
    selfSignedCa(dir, 'other-ca');
    openssl(dir, [
      'req',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-sha256',
      '-subj',
      '/CN=127.0.0.1',
      '-keyout',
      'serving.key',
      '-out',
      'serving.csr',
    ]);
    const ext = join(dir, 'serving.ext');
    execFileSync('sh', ['-c', `printf 'subjectAltName=IP:127.0.0.1\\nextendedKeyUsage=serverAuth\\n' > "${ext}"`]);
    openssl(dir, [
      'x509',
      '-req',
      '-in',
      'serving.csr',
      '-CA',
      'server-ca.crt',
      '-CAkey',
      'server-ca.key',
      '-CAcreateserial',
      '-days',
      '1',
      '-sha256',
      '-extfile',
      'serving.ext',
      '-out',
      'serving.crt',
    ]);
    const server: Server = createServer(
      { key: readFileSync(join(dir, 'serving.key')), cert: readFileSync(join(dir, 'serving.crt')) },
      (_req, res) => res.end('{}'),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return {
      url: `https://127.0.0.1:${port}`,
      otherCaPem: readFileSync(join(dir, 'other-ca.crt'), 'utf8'),
      close: () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
