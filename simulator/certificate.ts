/**
 * A self-signed certificate for 127.0.0.1/localhost, generated once per process: key generation
 * is the slowest part of starting a simulator and tests start many.
 */
import { generate } from 'selfsigned';

export interface KeyPair {
  key: string;
  cert: string;
}

let cached: Promise<KeyPair> | undefined;

export function selfSignedCertificate(): Promise<KeyPair> {
  cached ??= generate([{ name: 'commonName', value: '127.0.0.1' }], {
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
  cached.catch(() => {
    cached = undefined;
  });
  return cached;
}
