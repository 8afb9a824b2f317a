/**
 * Shrinking, replay and the printed reproduction: a failing property shrinks to a small case,
 * BMC_FUZZ_PATH with the same seed replays exactly that case, and the curl line sends the same bytes.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { requestTarget } from '../../client/transport.js';
import { shellTemplate, loginCaseArb, renderLogin } from '../../suites/fuzz/login.js';
import { anyRequestArb, loginRequest, type FuzzRequest } from '../../suites/fuzz/requests.js';
import { FuzzViolation, curlLine, replayCaseFor } from '../../suites/fuzz/repro.js';
import { clientWouldRefuse } from '../../suites/fuzz/send.js';
import { failureMessage, propertySeed, runProperty, type FuzzProperty } from '../../suites/fuzz/runner.js';
import fc from 'fast-check';
import { MODEL, WHO } from './fixture.js';

const BASE = 'https://127.0.0.1:8443';

/** A fake target that "crashes" on any non-ASCII byte in the path, as the crash-on-unicode-path fault does. */
function crashOnNonAscii(): FuzzProperty<FuzzRequest> {
  return {
    key: 'fake',
    requirements: ['ERR-5'],
    requestsPerRun: 1,
    arbitrary: anyRequestArb({ model: MODEL, profile: 'safe', who: WHO, writable: [] }),
    reproOf: (r) => [r],
    predicate: async (r) => {
      const target = requestTarget('', r.path);
      if (/%[89a-f][0-9a-f]/i.test(target)) throw new FuzzViolation('ERR-5', `${r.method} ${r.path} answered 500`, [r]);
    },
  };
}

describe('shrinking and replay', () => {
  test('a failure shrinks to a short request and replays exactly from seed and path', async () => {
    const first = await runProperty(crashOnNonAscii(), { numRuns: 300, runSeed: 42, timeLimitMs: 20_000 });
    expect(first.failed).toBe(true);
    expect(first.counterexamplePath).toMatch(/^\d+(:\d+)*$/);
    // Small, or one long segment of a non-ASCII letter (the shortest "very long segment" is 256).
    expect((first.counterexample as FuzzRequest).path.length).toBeLessThan(400);

    const again = await runProperty(crashOnNonAscii(), {
      numRuns: 300,
      runSeed: 42,
      timeLimitMs: 20_000,
      replay: { path: first.counterexamplePath! },
    });
    expect(again.numRuns).toBe(1);
    expect(again.counterexample).toEqual(first.counterexample);

    const message = failureMessage(first, BASE);
    const line = message.split('\n')[0]!;
    expect(line).toContain(`BMC_FUZZ_PATH=fake:${first.counterexamplePath}`);
    expect(line).toContain('--seed 42');
    expect(line).toContain('curl -k');
    expect(line.length).toBeLessThanOrEqual(400);
  });

  test('the same run seed always gives the same property seed; keys give different ones', () => {
    expect(propertySeed(7, 'env')).toBe(propertySeed(7, 'env'));
    expect(propertySeed(7, 'env')).not.toBe(propertySeed(7, 'err5'));
  });

  test('BMC_FUZZ_PATH names a path per property, narrowed to a requirement or not', () => {
    expect(replayCaseFor('err5', 'env:1:2,err5:3:0:1')).toEqual({ path: '3:0:1', requirement: undefined });
    expect(replayCaseFor('env', 'env:1:2,err5:3:0:1')).toEqual({ path: '1:2', requirement: undefined });
    expect(replayCaseFor('env', 'env/ENV-2:7:0')).toEqual({ path: '7:0', requirement: 'ENV-2' });
    expect(replayCaseFor('wr1', 'env:1:2')).toBeUndefined();
    expect(replayCaseFor('env', 'env:rm -rf')).toBeUndefined();
  });
});

/** Runs a curl line with `curl` replaced by a function that reports what it would send. */
function curlArgs(line: string, env: Record<string, string>): { method: string; url: string; body?: Buffer; headers: string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'fuzz-curl-'));
  const script = `curl() { local out=${JSON.stringify(dir)}; : > "$out/headers"; while [ $# -gt 0 ]; do case "$1" in -X) printf %s "$2" > "$out/method"; shift;; -H) printf '%s\\n' "$2" >> "$out/headers"; shift;; -b) shift;; --data-raw) printf %s "$2" > "$out/body"; shift;; --data-binary) cat "\${2#@}" > "$out/body"; shift;; https://*|'http://'*) printf %s "$1" > "$out/url";; esac; shift; done; }\n${line}\n`;
  const read = (f: string) => {
    try {
      return readFileSync(join(dir, f));
    } catch {
      return undefined;
    }
  };
  try {
    execFileSync('bash', ['-c', script], { env: { ...process.env, ...env } });
    return {
      method: read('method')!.toString(),
      url: read('url')!.toString(),
      body: read('body'),
      headers: read('headers')!.toString().split('\n').filter(Boolean),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('curl reproductions', () => {
  test('send the same method, target and body bytes as the client', () => {
    const samples = fc.sample(anyRequestArb({ model: MODEL, profile: 'destructive', who: WHO, writable: [] }), { numRuns: 60, seed: 9 });
    for (const r of samples) {
      if (clientWouldRefuse(r)) continue; // never sent, nothing to reproduce
      const sent = curlArgs(curlLine(BASE, r), { PASSWORD: WHO.password, COOKIE: 'sid=x' });
      expect(sent.method).toBe(r.method);
      expect(sent.url).toBe(BASE + requestTarget('', r.path));
      const body = r.body === undefined ? undefined : Buffer.isBuffer(r.body) ? r.body : Buffer.from(r.body, 'utf8');
      if (body === undefined || body.length === 0) continue;
      expect(sent.body?.equals(body), `${r.family} ${JSON.stringify(r.body)}`).toBe(true);
      if (r.contentType !== undefined) expect(sent.headers).toContain(`Content-Type: ${r.contentType}`);
    }
  });

  test('login bodies derived from the password print as $PASSWORD expansions that bash turns back into the same bytes', () => {
    const cases = fc.sample(loginCaseArb(WHO), { numRuns: 200, seed: 3 }).filter((c) => renderLogin(c, WHO).template);
    expect(cases.length).toBeGreaterThan(20);
    for (const c of cases) {
      const r = loginRequest('/login', c, WHO);
      const line = curlLine(BASE, r);
      expect(line).not.toContain(WHO.password);
      const sent = curlArgs(line, { PASSWORD: WHO.password });
      expect(sent.body?.toString('utf8'), shellTemplate(r.template!)).toBe(r.body);
    }
  });
});
