/**
 * Answer faults at a site (simulator/answer-faults.ts): each breaks its statement at its one route
 * and outcome, which the oracle's checks of one answer find, and leaves every other site alone.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { allSiteFaults, parseSiteFault, siteFaultName } from '../../simulator/answer-faults.js';
import { FaultSet } from '../../simulator/faults.js';
import { startSimulator, type RunningSimulator } from '../../simulator/index.js';
import { ANSWER_CHECKS, answerOf } from '../../suites/harness/answer-checks.js';
import type { Exchange } from '../../client/evidence.js';
import { call, login, ROOT, type CallOptions, type Reply } from './helpers.js';

describe('the pairs', () => {
  test('every operator at every site it applies to: 260 pairs, each named NAME@ROUTE:OUTCOME and read back', () => {
    const pairs = allSiteFaults();
    expect(pairs.length).toBe(260);
    for (const p of pairs) expect(parseSiteFault(siteFaultName(p))).toEqual(p);
    expect(new Set(pairs.map(siteFaultName)).size).toBe(pairs.length);
  });

  test.each([
    ['answer-omits-data@nowhere:ok', 'an unknown route'],
    ['answer-omits-data@logout:maybe', 'an unknown outcome'],
    ['answer-success-202@login:error', 'a success code for an error'],
    ['refusal-leaks-value@object:ok', 'a leaking refusal on a success'],
    ['no-such-operator@logout:ok', 'an unknown operator'],
  ])('%s is refused (%s)', (name) => {
    expect(parseSiteFault(name)).toBeUndefined();
    expect(() => new FaultSet([name])).toThrow(/unknown fault/);
  });
});

/** What the checks of one answer find in a reply, as the oracle would. */
function found(method: string, path: string, opts: CallOptions, reply: Reply): string[] {
  const x: Exchange = {
    at: new Date().toISOString(),
    method,
    url: path,
    requestHeaders: {
      accept: 'application/json',
      ...(opts.cookie && { cookie: opts.cookie }),
      ...(opts.json !== undefined && { 'content-type': 'application/json' }),
    },
    ...(opts.json !== undefined && { requestBody: JSON.stringify(opts.json) }),
    status: reply.status,
    responseHeaders: reply.headers,
    responseBody: reply.text,
    durationMs: 1,
  };
  const a = answerOf(x);
  return a ? ANSWER_CHECKS.filter((c) => c.applies(a) && c.problem(a) !== undefined).map((c) => c.requirement) : [];
}

describe('a pair breaks its statement at its site only', () => {
  let sim: RunningSimulator | undefined;
  afterEach(async () => {
    await sim?.close();
    sim = undefined;
  });

  const system = `${ROOT}/inventory/system`;
  test.each([
    ['answer-omits-data@logout:ok', 'ENV-1'],
    ['answer-omits-message@object:error', 'ENV-1'],
    ['answer-omits-status@attr:ok', 'ENV-1'],
    ['answer-message-other-code@object:ok', 'ENV-2'],
    ['answer-message-bare-code@children:ok', 'ENV-2'],
    ['answer-status-flipped@attr:error', 'ENV-3'],
    ['answer-status-capitalised@list:ok', 'ENV-3'],
    ['answer-text-plain@enumerate:ok', 'ENV-4'],
    ['answer-body-cut@logout:error', 'ENV-4'],
    ['answer-success-202@object:ok', 'ERR-4'],
  ])('%s: %s at its site, nothing at the others', async (fault, requirement) => {
    sim = await startSimulator({ faults: [fault] });
    const cookie = await login(sim.url);
    const requests: Array<[string, string, string, CallOptions]> = [
      ['object:ok', 'GET', system, { cookie }],
      ['object:error', 'GET', `${ROOT}/bmc_conformance_missing`, { cookie }],
      ['attr:ok', 'GET', `${system}/attr/Model`, { cookie }],
      ['attr:error', 'GET', `${system}/attr/BmcConformanceMissing`, { cookie }],
      ['children:ok', 'GET', `${ROOT}/`, { cookie }],
      ['list:ok', 'GET', `${ROOT}/time/list`, { cookie }],
      ['enumerate:ok', 'GET', `${ROOT}/time/enumerate`, { cookie }],
      ['logout:error', 'POST', '/logout', { json: { data: [] } }],
      ['logout:ok', 'POST', '/logout', { cookie, json: { data: [] } }],
    ];
    const site = fault.slice(fault.indexOf('@') + 1);
    for (const [at, method, path, opts] of requests) {
      const reply = await call(sim.url, method, path, opts);
      expect(found(method, path, opts, reply), `${at} (${method} ${path}: ${reply.status} ${reply.text.slice(0, 80)})`).toEqual(
        at === site ? [requirement] : [],
      );
    }
  });

  test('refusal-leaks-value@attr:error: a refusal without credentials carries a value of the tree; one with a session does not', async () => {
    sim = await startSimulator({ faults: ['refusal-leaks-value@attr:error'] });
    const cookie = await login(sim.url);
    const anonymous = await call(sim.url, 'GET', `${ROOT}/time/bmc/attr/Elapsed`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.text).toContain('SN0123456789');
    const withSession = await call(sim.url, 'GET', `${system}/attr/BmcConformanceMissing`, { cookie });
    expect(withSession.status).toBe(404);
    expect(withSession.text).not.toContain('SN0123456789');
    // The system addressed (a PUT of it carries its own values): another object's value.
    const system401 = await call(sim.url, 'GET', `${system}/attr/Model`);
    expect(system401.text).toContain('02:00:5e:00:53:01');
    const elsewhere = await call(sim.url, 'GET', `${ROOT}/time/bmc`);
    expect(elsewhere.status).toBe(401);
    expect(elsewhere.text).not.toContain('SN0123456789');
  });
});
