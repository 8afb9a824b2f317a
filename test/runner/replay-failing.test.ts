/**
 * Which requests a finding is about (read from its reason and its evidence), and how `replay`
 * judges the whole from each request's verdict: reproduced only when every one of them was
 * repeated and answered as in the run.
 */
import { describe, expect, test } from 'vitest';
import type { Exchange } from '../../client/evidence.js';
import { failingRequests } from '../../runner/replay-failing.js';
import { conclusion, judge, NOT_REPEATABLE_EXIT, replayExitCode, type RequestReport } from '../../runner/replay-verdict.js';

let clock = Date.parse('2026-01-01T00:00:00Z');
function x(method: string, url: string, status: number, extra: Partial<Exchange> = {}): Exchange {
  clock += 10;
  return { at: new Date(clock).toISOString(), method, url, requestHeaders: {}, status, durationMs: 1, ...extra };
}

describe('the requests a finding is about', () => {
  test('EP-1: the login its reason names', () => {
    const login = x('POST', '/login', 400, { requestBody: '{"data":["root","***"]}' });
    const found = failingRequests('POST /login: expected 200 OK, got 400 body ""', [login]);
    expect(found).toEqual({ exchanges: new Set([login]), absent: [], basis: 'named' });
  });

  test('RULE-5: the DELETE, not the GET before it; a colon after the path is not part of it', () => {
    const get = x('GET', '/xyz/mgmt_project/inventory/system', 200);
    const del = x('DELETE', '/xyz/mgmt_project/inventory/system', 404);
    const found = failingRequests('DELETE /xyz/mgmt_project/inventory/system: expected 403 Forbidden, got 404 "404 Not Found"', [get, del]);
    expect([...found.exchanges]).toEqual([del]);
  });

  test('a path cut short with … names the requests it starts; the status in the reason picks among them', () => {
    const failed = x('PUT', '/xyz/mgmt_project/led/groups/enclosure_identify/attr/Asserted', 500, { requestBody: '{"data":2}' });
    const restored = x('PUT', '/xyz/mgmt_project/led/groups/enclosure_identify/attr/Asserted', 200, { requestBody: '{"data":false}' });
    const other = x('PUT', '/xyz/mgmt_project/control/power_cap/attr/PowerCap', 500);
    const reason = 'PUT /xyz/mgmt_project/led/groups/enclosure_i… Request" does not match the HTTP status 500 — curl …';
    expect([...failingRequests(reason, [failed, other, restored]).exchanges]).toEqual([failed]);
  });

  test('a subscription named by its filter', () => {
    const plain = x('GET', '/subscribe', 101, { requestBody: '{"paths":["/a"]}' });
    const empty = x('GET', '/subscribe', 101, { requestBody: '{}' });
    const found = failingRequests('the target closed the subscription with {} (filter {}) with code 1000 "Unable"', [plain, empty]);
    expect([...found.exchanges]).toEqual([empty]);
  });

  test('a request the reason names that the evidence did not keep is absent', () => {
    const kept = x('GET', '/xyz/mgmt_project/state/host0/list', 200);
    const found = failingRequests(
      'answers of the run that are no envelope: GET /xyz/mgmt_project/network/host0 answered 200: an empty body',
      [kept],
    );
    expect(found).toEqual({ exchanges: new Set(), absent: [{ method: 'GET', path: '/xyz/mgmt_project/network/host0' }], basis: 'named' });
  });

  test('a reason that names no request makes every request of the test count', () => {
    const evidence = [x('POST', '/upload/image', 200), x('GET', '/xyz/mgmt_project/software', 200)];
    const found = failingRequests('InterfacesAdded #1 { "path": "/xyz/mgmt_project/software" } does not match the shape', evidence);
    expect(found).toEqual({ exchanges: new Set(evidence), absent: [], basis: 'every' });
  });
});

describe('the verdict of the whole and its exit code', () => {
  const login: RequestReport = {
    label: 'POST /login',
    failing: true,
    verdict: { kind: 'not-repeatable', why: 'a login is not repeated by replay', byHand: 'curl …' },
  };
  const read: RequestReport = { label: 'GET /x', failing: false, verdict: { kind: 'same' } };

  test('a finding whose request was not repeated is not reproduced, however the rest answered', () => {
    expect(judge([login], [])).toBe('not-repeatable');
    expect(replayExitCode({ result: judge([login, read], []) })).toBe(NOT_REPEATABLE_EXIT);
    expect(NOT_REPEATABLE_EXIT).toBe(3);
    expect(conclusion('not-repeatable', [login], [], 0)).toBe(
      'not reproduced: the replay could not repeat what the finding is about: POST /login; run its curl line above by hand',
    );
  });

  test('repeated and answered alike: reproduced, saying which other requests were not repeated', () => {
    const get: RequestReport = { label: 'GET /', failing: true, verdict: { kind: 'same' } };
    const other = { ...login, failing: false };
    expect(judge([get, other], [])).toBe('reproduced');
    expect(replayExitCode({ result: 'reproduced' })).toBe(0);
    expect(conclusion('reproduced', [get, other], [], 0)).toBe(
      'reproduced: GET / answered as in the run (1 other request was not repeated: see above)',
    );
  });

  test('repeated and answered differently, or a subscription that differs: exit 1', () => {
    const changed: RequestReport = { label: 'GET /', failing: true, verdict: { kind: 'different', run: '404', now: '200 "ok"' } };
    expect(judge([changed], [])).toBe('different');
    expect(judge([read], ['subscription 1 (filter {}) kept open; in the run closed by the target (code 1000)'])).toBe('different');
    expect(replayExitCode({ result: 'different' })).toBe(1);
    expect(conclusion('different', [changed], [], 0)).toBe('did not reproduce: GET / answered 200 "ok"; in the run 404');
  });

  test('a subscription repeated without what it is judged on counts as not repeated', () => {
    const sub: RequestReport = {
      label: 'subscription 1',
      failing: true,
      subscription: true,
      verdict: { kind: 'not-compared', why: 'the run kept only its first 100 messages' },
    };
    expect(replayExitCode({ result: judge([sub], []) })).toBe(NOT_REPEATABLE_EXIT);
  });

  test('a signal wins', () => {
    expect(replayExitCode({ result: 'reproduced', interrupted: 'SIGTERM' })).toBe(143);
  });
});
