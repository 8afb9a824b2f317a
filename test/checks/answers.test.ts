/** The run-wide answers oracle (suites/harness/answers.ts): each check of one answer, and the ledger that applies them all. */
import { describe, expect, test } from 'vitest';
import { EvidenceLog, type Exchange } from '../../client/evidence.js';
import { ANSWER_CHECKS, answerOf, owesEnvelope, type HeldRequirement } from '../../suites/harness/answer-checks.js';
import { answerTally, anonymousRefusals, noteAnswer } from '../../suites/harness/answers.js';
import { startNextRun } from '../../client/run-scoped.js';

const OK = '{"data": {}, "message": "200 OK", "status": "ok"}';

const exchange = (over: Partial<Exchange>): Exchange => ({
  at: '2026-01-01T00:00:00.000Z',
  method: 'GET',
  url: '/xyz/mgmt_project/inventory/system',
  requestHeaders: { accept: 'application/json', cookie: 'sid=1' },
  status: 200,
  statusLine: '200 OK',
  responseHeaders: { 'content-type': 'application/json' },
  responseBody: OK,
  durationMs: 1,
  ...over,
});

/** The requirements one answer breaks, by every check that applies to it. */
function broken(over: Partial<Exchange>): HeldRequirement[] {
  const a = answerOf(exchange(over));
  if (!a) return [];
  return ANSWER_CHECKS.filter((c) => c.applies(a) && c.problem(a) !== undefined).map((c) => c.requirement);
}

const error404 = '{"data": {"description": "x"}, "message": "404 Not Found", "status": "error"}';

describe('the checks of one answer', () => {
  test.each<[string, Partial<Exchange>, HeldRequirement[]]>([
    ['a correct success', {}, []],
    ['a correct refusal', { status: 404, statusLine: '404 Not Found', responseBody: error404 }, []],
    ['an empty success', { responseBody: '' }, ['ENV-4']],
    ['a success that is not JSON', { responseBody: 'OK' }, ['ENV-4']],
    ['a success that is a JSON array', { responseBody: '[1]' }, ['ENV-1']],
    ['a success without data', { responseBody: '{"message": "200 OK", "status": "ok"}' }, ['ENV-1']],
    ['a refusal without message', { status: 404, responseBody: '{"data": {"description": "x"}, "status": "error"}' }, ['ENV-1']],
    ['a refusal whose message is another code', { status: 404, responseBody: error404.replace('404 Not Found', '200 OK') }, ['ENV-2']],
    ['a message that is a number', { responseBody: '{"data": {}, "message": 200, "status": "ok"}' }, ['ENV-2']],
    ['a refusal with status ok', { status: 404, responseBody: error404.replace('"error"', '"ok"') }, ['ENV-3']],
    ['a success labelled text/plain', { responseHeaders: { 'content-type': 'text/plain' } }, ['ENV-4']],
    ['a success answered 202', { status: 202, statusLine: '202 Accepted', responseBody: OK.replace('200 OK', '202 Accepted') }, ['ERR-4']],
    ['a server error', { status: 500, statusLine: '500 Internal Server Error', responseBody: '' }, ['ERR-5']],
    ['a busy target (503, retried)', { status: 503, statusLine: '503 Service Unavailable', responseBody: '' }, []],
    ['a refusal without a body', { status: 401, statusLine: '401 Unauthorized', responseBody: '' }, []],
    [
      'a refusal in plain text',
      { status: 401, responseHeaders: { 'content-type': 'text/plain' }, responseBody: 'Unauthorized' },
      ['ENV-4'],
    ],
    ['a refusal with a JSON body of its own (not meant as an envelope)', { status: 405, responseBody: '{"error": "no"}' }, []],
    [
      'an upload answered without data',
      {
        method: 'POST',
        url: '/upload/image',
        requestHeaders: { 'content-type': 'application/octet-stream' },
        responseBody: '{"message": "200 OK", "status": "ok"}',
      },
      ['ENV-1'],
    ],
    ['a DELETE answered 204', { method: 'DELETE', status: 204, statusLine: '204 No Content', responseBody: '' }, ['ENV-4', 'ERR-4']],
    [
      "a login in the field's form, answered with a token",
      {
        method: 'POST',
        url: '/login',
        requestHeaders: { 'content-type': 'application/json' },
        requestBody: '{"username": "u", "password": "p"}',
        responseBody: '{"token": "t"}',
      },
      [],
    ],
    [
      "a login in the spec's form, answered with a token",
      {
        method: 'POST',
        url: '/login',
        requestHeaders: { 'content-type': 'application/json' },
        requestBody: '{"data": ["u", "p"]}',
        responseBody: '{"token": "t"}',
      },
      ['ENV-1'],
    ],
    [
      "a write's server error (the write checks judge it by the value's type)",
      { method: 'PUT', url: '/x/attr/A', status: 500, responseBody: '' },
      [],
    ],
    ['a server error on an action', { method: 'POST', url: '/x/action/Reset', status: 500, responseBody: '' }, ['ERR-5']],
    ['a request that is no route (OPTIONS)', { method: 'OPTIONS', status: 500, responseBody: '' }, []],
    ['no answer at all (a reset)', { status: undefined, error: 'reset' }, []],
  ])('%s', (_what, over, expected) => {
    expect(broken(over).sort()).toEqual([...expected].sort());
  });

  test('an answer is owed as an envelope to JSON requests and image uploads, not to other content types', () => {
    const put = exchange({
      method: 'PUT',
      url: '/x/attr/A',
      requestBody: '{"data": 1}',
      requestHeaders: { 'content-type': 'application/json' },
    });
    expect(owesEnvelope(put, 'put-attr')).toBe(true);
    expect(owesEnvelope({ ...put, requestHeaders: { 'content-type': 'text/plain' } }, 'put-attr')).toBe(false);
    expect(owesEnvelope({ ...put, url: '/upload/image', requestHeaders: { 'content-type': 'application/octet-stream' } }, 'upload')).toBe(
      true,
    );
    expect(owesEnvelope({ ...put, requestHeaders: { accept: 'text/html' } }, 'object')).toBe(false);
  });

  test('every route and outcome is named by the site of its answer', () => {
    const sites = [
      ['POST', '/login', 'login'],
      ['POST', '/logout', 'logout'],
      ['GET', '/xyz/mgmt_project/time/bmc', 'object'],
      ['GET', '/xyz/mgmt_project/time/bmc/attr/Elapsed', 'attr'],
      ['GET', '/xyz/mgmt_project/', 'children'],
      ['GET', '/xyz/mgmt_project/list', 'list'],
      ['GET', '/xyz/mgmt_project/enumerate', 'enumerate'],
      ['PUT', '/xyz/mgmt_project/time/owner/attr/TimeOwner', 'put-attr'],
      ['PUT', '/xyz/mgmt_project/time/owner', 'put-object'],
      ['POST', '/xyz/mgmt_project/software/action/Reset', 'action'],
      ['DELETE', '/xyz/mgmt_project/logging/entry/1', 'delete'],
      ['POST', '/upload/image', 'upload'],
      ['PUT', '/upload/image/name.tar', 'upload-named'],
    ] as const;
    for (const [method, url, route] of sites) expect(answerOf(exchange({ method, url }))?.route, `${method} ${url}`).toBe(route);
    expect(answerOf(exchange({ method: 'GET', url: '/subscribe' }))).toBeUndefined();
  });
});

describe('the ledger', () => {
  test('the evidence log hands it every answer; it counts what each check judged and keeps a few findings a site', () => {
    startNextRun();
    const log = new EvidenceLog();
    log.onRecord(noteAnswer);
    for (let i = 0; i < 5; i++)
      log.record(exchange({ method: 'POST', url: '/logout', responseBody: '{"message": "200 OK", "status": "ok"}' }));
    log.record(exchange({}));
    const env1 = answerTally('ENV-1');
    expect(env1.judged).toBe(6);
    expect(env1.broken).toBe(5);
    expect(env1.kept.map((f) => f.site)).toEqual(['logout:ok', 'logout:ok', 'logout:ok']);
    expect(env1.kept[0]?.problem).toBe('the envelope lacks "data"');
    expect([...env1.sites].sort()).toEqual(['logout:ok', 'object:ok']);
    expect(answerTally('ENV-2').broken).toBe(0);
  });

  test('refusals of requests without credentials are kept for the leak oracle, with a session they are not', () => {
    startNextRun();
    const log = new EvidenceLog();
    log.onRecord(noteAnswer);
    const refusal = { status: 401, statusLine: '401 Unauthorized', responseBody: error404.replace('404 Not Found', '401 Unauthorized') };
    log.record(exchange({ ...refusal, requestHeaders: { accept: 'application/json' } }));
    log.record(exchange(refusal));
    log.record(exchange({ requestHeaders: { accept: 'application/json' }, status: 401, responseBody: '' }));
    expect(anonymousRefusals().seen).toBe(1);
  });
});
