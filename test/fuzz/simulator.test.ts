/**
 * The properties against the simulator: a clean one passes them all; a fault is caught, shrunk,
 * and its curl line run by real curl reproduces the answer.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterEach, describe, expect, test } from 'vitest';
import { anonymousProperty } from '../../suites/fuzz/properties/anonymous.js';
import { envelopeProperty, envelopeVerdict } from '../../suites/fuzz/properties/envelope.js';
import { loginProperty } from '../../suites/fuzz/properties/login.js';
import { serverErrorProperty } from '../../suites/fuzz/properties/server-error.js';
import { compareRoutes, stabilityProperty } from '../../suites/fuzz/properties/stability.js';
import { writeProperty, writeTargets } from '../../suites/fuzz/properties/write.js';
import { failureMessage, runProperty, type FuzzProperty } from '../../suites/fuzz/runner.js';
import { fuzzTarget, type FuzzTarget } from './target.js';
import { NS, WHO } from './fixture.js';
import type { BmcResponse } from '../../client/http.js';

/** Asynchronous: the simulator answers from this very process, so a blocking call would deadlock. */
const run = promisify(execFile);

const ROOT = `/xyz/${NS}`;
const open: FuzzTarget[] = [];

afterEach(async () => {
  for (const o of open.splice(0)) await o.close();
});

async function setup(faults: string[] = []): Promise<FuzzTarget> {
  const target = await fuzzTarget({ faults });
  open.push(target);
  return target;
}

const budget = { numRuns: 150, runSeed: 1234, timeLimitMs: 20_000 };

describe('on a clean simulator', () => {
  test('every property passes', async () => {
    const { env, loginClient } = await setup();
    const props: Array<FuzzProperty<any>> = [
      stabilityProperty(env),
      envelopeProperty(env),
      anonymousProperty(env),
      loginProperty(env, loginClient),
      serverErrorProperty(env),
      writeProperty(env, await writeTargets(env)),
    ];
    for (const p of props) {
      const r = await runProperty(p, budget);
      expect(r.failed, `${p.key}: ${r.violation?.problem ?? r.abort}`).toBe(false);
      // The boundary cases run first, besides the generated ones.
      expect(r.numRuns).toBe(budget.numRuns + (p.examples?.length ?? 0));
    }
  });
});

describe('on the bmcweb@2023 dialect', () => {
  test('the login property finds the session a NUL in the user name opens, at every seed, from its boundary cases alone', async () => {
    const target = await fuzzTarget({ dialect: 'bmcweb@2023' });
    open.push(target);
    for (const runSeed of [1, 2, 3]) {
      const r = await runProperty(loginProperty(target.env, target.loginClient), { numRuns: 0, runSeed, timeLimitMs: 20_000 });
      expect(r.failed).toBe(true);
      expect(r.violation?.requirement).toBe('AUTH-4');
      expect(String((r.violation?.repro[0] as { body?: unknown } | undefined)?.body)).toContain('["root\\u0000"');
    }
  });
});

describe('with faults', () => {
  test('crash-on-unicode-path fails ERR-5 and the printed curl reproduces the 500', async () => {
    const { env, url } = await setup(['crash-on-unicode-path']);
    const r = await runProperty(serverErrorProperty(env), budget);
    expect(r.failed).toBe(true);
    const line = failureMessage(r, url).split('\n')[0]!;
    const curl = line.slice(line.indexOf('curl -k'), line.lastIndexOf(' — replay'));
    const { stdout: out } = await run('bash', ['-c', curl], { env: { ...process.env, COOKIE: env.client.cookieHeader() } });
    expect(out).toMatch(/^HTTP\/1\.1 500/);
  });

  test('login-any-password fails AUTH-4 with a body a real shell sends as is', async () => {
    const { env, loginClient, url } = await setup(['login-any-password']);
    const r = await runProperty(loginProperty(env, loginClient), budget);
    expect(r.failed).toBe(true);
    const line = failureMessage(r, url).split('\n')[0]!;
    const curl = line.slice(line.indexOf('curl -k'), line.lastIndexOf(' — replay'));
    const { stdout: out } = await run('bash', ['-c', curl], { env: { ...process.env, PASSWORD: WHO.password } });
    expect(out).toMatch(/^HTTP\/1\.1 200/);
  });

  test.each([
    ['auth-bypass-enumerate', 'auth1', 'AUTH-1'],
    ['wrong-type-stored', 'wr1', 'WR-1'],
    ['attr-wrong-value', 'stable', 'EP-4'],
    ['list-not-recursive', 'stable', 'EP-6'],
    ['message-wrong-code', 'env', 'ENV-2'],
    ['status-ok-on-error', 'env', 'ENV-3'],
    ['refusal-leaks-data', 'auth1', 'AUTH-5'],
  ])('%s fails the %s property under %s', async (fault, key, requirement) => {
    const { env, loginClient } = await setup([fault]);
    const byKey: Record<string, () => Promise<FuzzProperty<any>>> = {
      auth1: async () => anonymousProperty(env),
      wr1: async () => writeProperty(env, await writeTargets(env)),
      stable: async () => stabilityProperty(env),
      env: async () => envelopeProperty(env),
      auth4: async () => loginProperty(env, loginClient),
    };
    const r = await runProperty(await byKey[key]!(), budget);
    expect(r.failed).toBe(true);
    expect(r.violation?.requirement).toBe(requirement);
    expect(r.violation?.repro.length).toBeGreaterThan(0);
  });
});

describe('envelope verdicts', () => {
  const res = (status: number, text: string): BmcResponse => {
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status, statusLine: String(status), headers: {}, text, json, durationMs: 0 };
  };
  const get = { family: 't', method: 'GET', path: `${ROOT}/nope`, credentials: false };

  test('a refusal with an empty or non-envelope body is fine; a 2xx is not', () => {
    expect(envelopeVerdict(get, res(401, ''))).toEqual([]);
    expect(envelopeVerdict(get, res(401, 'Unauthorized'))).toEqual([]);
    expect(envelopeVerdict(get, res(200, ''))).not.toEqual([]);
    expect(envelopeVerdict(get, res(200, 'hello'))).not.toEqual([]);
    // OPTIONS answered by the HTTP layer with an empty 200 is no envelope question.
    expect(envelopeVerdict({ ...get, method: 'OPTIONS' }, res(200, ''))).toEqual([]);
    expect(envelopeVerdict({ ...get, method: 'HEAD' }, res(200, ''))).toEqual([]);
  });

  test('an envelope must name its own status and agree with it', () => {
    expect(envelopeVerdict(get, res(404, '{"data":{"description":"x"},"message":"404 Not Found","status":"error"}'))).toEqual([]);
    expect(envelopeVerdict(get, res(404, '{"data":{"description":"x"},"message":"200 OK","status":"error"}'))).toHaveLength(1);
    expect(envelopeVerdict(get, res(404, '{"data":{"description":"x"},"message":"404 Not Found","status":"ok"}'))).toHaveLength(1);
  });

  test('each problem names the requirement it breaks', () => {
    expect(envelopeVerdict(get, res(404, '{"data":{"description":"x"},"message":"200 OK","status":"error"}'))[0]?.requirement).toBe(
      'ENV-2',
    );
    expect(envelopeVerdict(get, res(404, '{"data":{"description":"x"},"message":"404 Not Found","status":"ok"}'))[0]?.requirement).toBe(
      'ENV-3',
    );
    expect(envelopeVerdict(get, res(200, '{"message":"200 OK","status":"ok"}'))[0]?.requirement).toBe('ENV-1');
    expect(envelopeVerdict(get, res(200, 'hello'))[0]?.requirement).toBe('ENV-4');
    // No body is no JSON: ENV-4, as the envelope area and the run's answers judge it.
    expect(envelopeVerdict(get, res(200, ''))[0]?.requirement).toBe('ENV-4');
  });
});

describe('two routes that must agree', () => {
  const seq = (...values: unknown[]) => {
    let i = 0;
    return async () => values[i++];
  };

  test('a stable disagreement is one; a counter read in between agrees; a moving text cannot be judged', async () => {
    expect(await compareRoutes('a', 'a', seq(), seq())).toBe('agree');
    expect(await compareRoutes('a', 'b', seq('a'), seq('b'))).toBe('disagree');
    expect(await compareRoutes('a', 'b', seq('b'), seq())).toBe('agree');
    // A microsecond clock: X 100, Y 150, X 200 → Y lies between the two readings of X.
    expect(await compareRoutes(100n, 150n, seq(200n), seq())).toBe('agree');
    expect(await compareRoutes(100n, 99n, seq(200n), seq())).toBe('disagree');
    expect(await compareRoutes(100, 150, seq(100), seq(120))).toBe('moving');
    expect(await compareRoutes('t1', 'u', seq('t2'), seq())).toBe('moving');
  });
});
