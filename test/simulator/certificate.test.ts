/** The simulator's self-signed certificate is made once and kept for the next processes, privately. */
import { X509Certificate } from 'node:crypto';
import { chmod, readFile, stat } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test, vi } from 'vitest';

const file = join(tmpdir(), `bmc-conformance-simulator-cert-${userInfo().uid}.json`);

/** The module as a new process loads it: nothing kept in memory. */
async function freshModule() {
  vi.resetModules();
  return import('../../simulator/certificate.js');
}

describe('the simulator certificate', () => {
  test('is kept in a file only its user can read, and a new process takes it from there', async () => {
    const first = await (await freshModule()).selfSignedCertificate();
    const info = await stat(file);
    expect(info.mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual(first);
    expect(new X509Certificate(first.cert).checkIssued(new X509Certificate(first.cert))).toBe(true);
    const again = await (await freshModule()).selfSignedCertificate();
    expect(again).toEqual(first);
  });

  test('a kept file others could change is not used: a new pair is made and kept privately', async () => {
    const first = await (await freshModule()).selfSignedCertificate();
    await chmod(file, 0o644);
    const next = await (await freshModule()).selfSignedCertificate();
    expect(next.key).not.toBe(first.key);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });
});
