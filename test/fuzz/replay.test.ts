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

interface Sent {
  method: string;
  url: string;
  body?: Buffer;
  headers: string[];
}

/**
 * Runs curl lines in one bash, with `curl` replaced by a function that reports what each would
 * send. One bash for all: a process started from a test worker that has run many files costs up
 * to seconds (its memory is copied), and these tests run a line per sampled case.
 */
function curlArgs(lines: readonly string[], env: Record<string, string>): Sent[] {
  const dir = mkdtempSync(join(tmpdir(), 'fuzz-curl-'));
  const fn = `curl() { local out="$CASE_DIR"; : > "$out/headers"; while [ $# -gt 0 ]; do case "$1" in -X) printf %s "$2" > "$out/method"; shift;; -H) printf '%s\\n' "$2" >> "$out/headers"; shift;; -b) shift;; --data-raw) printf %s "$2" > "$out/body"; shift;; --data-binary) cat "\${2#@}" > "$out/body"; shift;; https://*|'http://'*) printf %s "$1" > "$out/url";; esac; shift; done; }\n`;
  const cases = lines.map((line, i) => `CASE_DIR=${JSON.stringify(join(dir, String(i)))}; mkdir "$CASE_DIR"\n${line}\n`);
  const read = (i: number, f: string) => {
    try {
      return readFileSync(join(dir, String(i), f));
    } catch {
      return undefined;
    }
  };
  try {
    execFileSync('bash', ['-c', fn + cases.join('')], { env: { ...process.env, ...env } });
    return lines.map((_, i) => ({
      method: read(i, 'method')!.toString(),
      url: read(i, 'url')!.toString(),
      body: read(i, 'body'),
      headers: read(i, 'headers')!.toString().split('\n').filter(Boolean),
    }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('curl reproductions', () => {
  test('send the same method, target and body bytes as the client', () => {
    const samples = fc.sample(anyRequestArb({ model: MODEL, profile: 'destructive', who: WHO, writable: [] }), { numRuns: 60, seed: 9 });
    // A request the client refuses is never sent: nothing to reproduce.
    const requests = samples.filter((r) => !clientWouldRefuse(r));
    expect(requests.length).toBeGreaterThan(30);
    const sents = curlArgs(
      requests.map((r) => curlLine(BASE, r)),
      { PASSWORD: WHO.password, COOKIE: 'sid=x' },
    );
    for (const [i, r] of requests.entries()) {
      const sent = sents[i]!;
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
    const requests = cases.map((c) => loginRequest('/login', c, WHO));
    const lines = requests.map((r) => curlLine(BASE, r));
    for (const line of lines) expect(line).not.toContain(WHO.password);
    const sents = curlArgs(lines, { PASSWORD: WHO.password });
    for (const [i, r] of requests.entries()) expect(sents[i]!.body?.toString('utf8'), shellTemplate(r.template!)).toBe(r.body);
  });
});
