import { readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runOpenssl, runOpensslSync } from './openssl.js';

/** A PEM certificate and its private key. */
export interface CertAndKey {
  certPem: string;
  keyPem: string;
}

const SERVING_EXT = [
  'basicConstraints=critical,CA:FALSE',
  'keyUsage=critical,digitalSignature,keyEncipherment',
  'extendedKeyUsage=serverAuth',
  'subjectAltName=IP:127.0.0.1,DNS:localhost,IP:10.0.0.1,DNS:kubernetes.default.svc',
].join('\n');
const CLIENT_EXT = [
  'basicConstraints=critical,CA:FALSE',
  'keyUsage=critical,digitalSignature,keyEncipherment',
  'extendedKeyUsage=clientAuth',
].join('\n');
const DAYS = '3650';

/** Characters that would break an openssl `-subj` string or a certificate name. */
const BAD_NAME = /[/\\+=,\n\r"]/;

function checkName(what: string, name: string): void {
  if (name === '' || BAD_NAME.test(name)) {
    throw new TypeError(`${what} ${JSON.stringify(name)} must be non-empty and contain none of / \\ + = , " or newlines`);
  }
}

/**
 * The certificates of one test cluster, made with `openssl` in `dir`: a CA,
 * a serving certificate for 127.0.0.1, an admin client certificate
 * (CN=admin, O=system:masters) and a service-account key pair. Paths are
 * what the kube-apiserver flags take.
 *
 * Easy to get wrong: client certificates for other users must be signed by
 * this CA ({@link TestPki.issueClientCert}), or the server answers 401.
 */
export class TestPki {
  private issued = 0;

  private constructor(
    readonly dir: string,
    readonly caPem: string,
    readonly admin: CertAndKey,
  ) {}

  get caCert(): string {
    return join(this.dir, 'ca.crt');
  }
  get caKey(): string {
    return join(this.dir, 'ca.key');
  }
  get servingCert(): string {
    return join(this.dir, 'serving.crt');
  }
  get servingKey(): string {
    return join(this.dir, 'serving.key');
  }
  get saPublicKey(): string {
    return join(this.dir, 'sa.pub');
  }
  get saPrivateKey(): string {
    return join(this.dir, 'sa.key');
  }

  /** Creates every file in `dir` (which must exist). Rejects with OpensslError. */
  static async create(dir: string): Promise<TestPki> {
    await runOpenssl(
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-sha256',
        '-days',
        DAYS,
        '-keyout',
        'ca.key',
        '-out',
        'ca.crt',
        '-subj',
        '/CN=protean-test-ca',
        '-addext',
        'basicConstraints=critical,CA:TRUE',
        '-addext',
        'keyUsage=critical,keyCertSign,cRLSign,digitalSignature',
      ],
      dir,
    );
    await Promise.all([writeFile(join(dir, 'serving.ext'), `${SERVING_EXT}\n`), writeFile(join(dir, 'client.ext'), `${CLIENT_EXT}\n`)]);
    // Key generation dominates; run the three independent ones side by side.
    await Promise.all([
      signedCert(dir, 'serving', '/CN=kube-apiserver', 'serving.ext'),
      signedCert(dir, 'admin', '/O=system:masters/CN=admin', 'client.ext'),
      runOpenssl(['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048', '-out', 'sa.key'], dir).then(() =>
        runOpenssl(['pkey', '-in', 'sa.key', '-pubout', '-out', 'sa.pub'], dir),
      ),
    ]);
    const [caPem, certPem, keyPem] = await Promise.all(['ca.crt', 'admin.crt', 'admin.key'].map((f) => readFile(join(dir, f), 'utf8')));
    return new TestPki(dir, caPem as string, { certPem: certPem as string, keyPem: keyPem as string });
  }

  /**
   * A client certificate for `user` in `groups` (CN=user, one O per group),
   * signed by this CA. Synchronous (runs openssl twice, ~0.1-0.3 s).
   */
  issueClientCert(user: string, groups: readonly string[] = []): CertAndKey {
    checkName('user', user);
    for (const g of groups) checkName('group', g);
    const base = `client-${++this.issued}`;
    const subj = `${groups.map((g) => `/O=${g}`).join('')}/CN=${user}`;
    runOpensslSync(
      ['req', '-new', '-newkey', 'rsa:2048', '-nodes', '-sha256', '-keyout', `${base}.key`, '-out', `${base}.csr`, '-subj', subj],
      this.dir,
    );
    runOpensslSync(
      [
        'x509',
        '-req',
        '-sha256',
        '-days',
        DAYS,
        '-in',
        `${base}.csr`,
        '-CA',
        'ca.crt',
        '-CAkey',
        'ca.key',
        '-CAcreateserial',
        '-extfile',
        'client.ext',
        '-out',
        `${base}.crt`,
      ],
      this.dir,
    );
    return {
      certPem: readFileSync(join(this.dir, `${base}.crt`), 'utf8'),
      keyPem: readFileSync(join(this.dir, `${base}.key`), 'utf8'),
    };
  }
}

async function signedCert(dir: string, base: string, subj: string, ext: string): Promise<void> {
  await runOpenssl(
    ['req', '-new', '-newkey', 'rsa:2048', '-nodes', '-sha256', '-keyout', `${base}.key`, '-out', `${base}.csr`, '-subj', subj],
    dir,
  );
  // A serial file per certificate: concurrent -CAcreateserial on one file would race.
  await runOpenssl(
    [
      'x509',
      '-req',
      '-sha256',
      '-days',
      DAYS,
      '-in',
      `${base}.csr`,
      '-CA',
      'ca.crt',
      '-CAkey',
      'ca.key',
      '-CAserial',
      `${base}.srl`,
      '-CAcreateserial',
      '-extfile',
      ext,
      '-out',
      `${base}.crt`,
    ],
    dir,
  );
}
