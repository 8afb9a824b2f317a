/**
 * A self-signed certificate for 127.0.0.1/localhost, generated once and kept: key generation is
 * the slowest part of starting a simulator, and tests, fleets and the mutation self-test start
 * many, in many processes. It is kept in memory and in a file of this user's (mode 0600) in the
 * temporary folder, and made again when it has less than a day left or cannot be read.
 */
import { readFile, rename, stat, writeFile } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { createPrivateKey, X509Certificate } from 'node:crypto';

export interface KeyPair {
  key: string;
  cert: string;
}

let cached: Promise<KeyPair> | undefined;

const DAY_MS = 24 * 3600 * 1000;

function cacheFile(): string {
  let user: string;
  try {
    user = String(userInfo().uid);
  } catch {
    user = 'user';
  }
  return join(tmpdir(), `bmc-conformance-simulator-cert-${user}.json`);
}

/** The kept pair, when it is there, whole, and valid for at least another day. */
async function kept(): Promise<KeyPair | undefined> {
  try {
    // Only a file of this user's that nobody else can read or write: another's would be another's key.
    const info = await stat(cacheFile());
    if ((process.getuid && info.uid !== process.getuid()) || (info.mode & 0o077) !== 0) return undefined;
    const pair = JSON.parse(await readFile(cacheFile(), 'utf8')) as KeyPair;
    if (typeof pair.key !== 'string' || typeof pair.cert !== 'string') return undefined;
    const x509 = new X509Certificate(pair.cert);
    return Date.parse(x509.validTo) - Date.now() > DAY_MS && x509.checkPrivateKey(createPrivateKey(pair.key)) ? pair : undefined;
  } catch {
    return undefined;
  }
}

/** Written to a file of its own first, then renamed: a process reading it never sees half of it. */
async function keep(pair: KeyPair): Promise<void> {
  const file = cacheFile();
  const partial = `${file}.${process.pid}.tmp`;
  try {
    await writeFile(partial, JSON.stringify(pair), { mode: 0o600 });
    await rename(partial, file);
  } catch {
    // A cache that cannot be written costs a key generation next time, nothing else.
  }
}

export function selfSignedCertificate(): Promise<KeyPair> {
  cached ??= kept().then(async (pair) => {
    if (pair) return pair;
    const made = await fresh();
    await keep(made);
    return made;
  });
  cached.catch(() => {
    cached = undefined;
  });
  return cached;
}

async function fresh(): Promise<KeyPair> {
  // Loaded only to make a pair: its modules (an ASN.1 and X.509 stack) cost 0.2 s of CPU at every start.
  const { generate } = await import('selfsigned');
  return generate([{ name: 'commonName', value: '127.0.0.1' }], {
    keySize: 2048,
    notAfterDate: new Date(Date.now() + 30 * 24 * 3600 * 1000),
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: false },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 7, ip: '127.0.0.1' },
          { type: 2, value: 'localhost' },
        ],
      },
    ],
  }).then((p) => ({ key: p.private, cert: p.cert }));
}
