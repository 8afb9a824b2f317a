/** Every answer of the run judged as an answer (suites/harness/answers.ts): what counts, and as which requirement. */
import { describe, expect, test } from 'vitest';
import { EvidenceLog, type Exchange } from '../../client/evidence.js';
import { answerProblem, isJsonRequest, noteAnswer, takeAnswerProblems } from '../../suites/harness/answers.js';

const exchange = (over: Partial<Exchange>): Exchange => ({
  at: '2026-01-01T00:00:00.000Z',
  method: 'GET',
  url: '/xyz/mgmt_project/inventory/system',
  requestHeaders: { accept: 'application/json' },
  status: 200,
  responseBody: '{"data": {}, "message": "200 OK", "status": "ok"}',
  durationMs: 1,
  ...over,
});

describe('answers to JSON requests', () => {
  test('a JSON request asks for JSON and sends JSON or nothing; uploads and other methods are not', () => {
    expect(isJsonRequest(exchange({}))).toBe(true);
    expect(
      isJsonRequest(exchange({ method: 'PUT', requestBody: '{"data": 1}', requestHeaders: { 'content-type': 'application/json' } })),
    ).toBe(true);
    expect(
      isJsonRequest(exchange({ method: 'POST', requestBody: 'x', requestHeaders: { 'content-type': 'application/octet-stream' } })),
    ).toBe(false);
    expect(isJsonRequest(exchange({ method: 'OPTIONS' }))).toBe(false);
    expect(isJsonRequest(exchange({ url: '/subscribe' }))).toBe(false);
  });

  test('a success must be a JSON object; a refusal may have no body, but a body it has is JSON', () => {
    expect(answerProblem(exchange({}))).toBeUndefined();
    expect(answerProblem(exchange({ responseBody: '' }))?.requirement).toBe('ENV-4');
    expect(answerProblem(exchange({ responseBody: 'OK' }))?.requirement).toBe('ENV-4');
    expect(answerProblem(exchange({ responseBody: '[1]' }))?.requirement).toBe('ENV-1');
    expect(answerProblem(exchange({ status: 401, responseBody: '' }))).toBeUndefined();
    expect(answerProblem(exchange({ status: 404, responseBody: 'Not Found' }))?.requirement).toBe('ENV-4');
    expect(answerProblem(exchange({ status: 500, responseBody: '' }))).toBeUndefined();
    expect(answerProblem(exchange({ status: undefined, error: 'reset' }))).toBeUndefined();
  });

  test('the evidence log tells the ledger of each exchange; a take returns what came since, redacted', () => {
    takeAnswerProblems('ENV-4', []);
    const log = new EvidenceLog();
    log.onRecord(noteAnswer);
    log.record(exchange({ url: '/xyz/mgmt_project//s3cret', responseBody: '' }));
    log.record(exchange({}));
    const first = takeAnswerProblems('ENV-4', ['s3cret']);
    expect(first.count).toBe(1);
    expect(first.messages).toEqual(['GET /xyz/mgmt_project//*** answered 200: an empty body: no JSON, no envelope']);
    expect(takeAnswerProblems('ENV-4', []).count).toBe(0);
  });
});
