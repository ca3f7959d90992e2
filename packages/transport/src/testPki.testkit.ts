import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Test-only certificates, made with `openssl`: a CA, a serving certificate for 127.0.0.1 and client certificates by CN. */
export interface TestPki {
  readonly caPem: string;
  readonly serverCertPem: string;
  readonly serverKeyPem: string;
  /** A client certificate with `CN=<name>` signed by the CA. */
  client(name: string): { certPem: string; keyPem: string };
  dispose(): void;
}

export function makeTestPki(): TestPki {
  const dir = mkdtempSync(join(tmpdir(), 'protean-transport-pki-'));
  const run = (...args: string[]): void => {
    execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  };
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  run('req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=transport-test-ca');
  const issue = (name: string, ext: string): { certPem: string; keyPem: string } => {
    writeFileSync(join(dir, `${name}.ext`), ext);
    run('req', ...ec, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name}`);
    run(
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      'ca.crt',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-days',
      '2',
      '-out',
      `${name}.crt`,
      '-extfile',
      `${name}.ext`,
    );
    return { certPem: readFileSync(join(dir, `${name}.crt`), 'utf8'), keyPem: readFileSync(join(dir, `${name}.key`), 'utf8') };
  };
  const server = issue('server', 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n');
  return {
    caPem: readFileSync(join(dir, 'ca.crt'), 'utf8'),
    serverCertPem: server.certPem,
    serverKeyPem: server.keyPem,
    client: (name) => issue(name, 'extendedKeyUsage=clientAuth\n'),
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}
