/** Allure steps: a request answered with a server error, not answered, or named by a finding is drawn as a failed step. */
import { describe, expect, test } from 'vitest';
import { namedBy, stepFailure } from '../../report/allure/test.js';
import type { Exchange } from '../../client/evidence.js';

const exchange = (x: Partial<Exchange>): Exchange => ({ method: 'PUT', url: '/xyz/x', ...x }) as Exchange;

describe('allure step status', () => {
  test('a 5xx answer fails its step as an assertion (red, not broken)', () => {
    const err = stepFailure(exchange({ status: 500, statusLine: '500 Internal Server Error' }));
    expect(err?.name).toBe('AssertionError');
    expect(err?.message).toBe('the target answered 500 Internal Server Error');
  });

  test('no answer fails its step too', () => {
    expect(stepFailure(exchange({ error: 'connection reset\nmore' }))?.message).toBe('no response: connection reset');
  });

  test('a 2xx or 4xx answer is judged by the test, not by its step', () => {
    expect(stepFailure(exchange({ status: 200 }))).toBeUndefined();
    expect(stepFailure(exchange({ status: 405 }))).toBeUndefined();
  });
});

describe('a request a finding names is a failing step', () => {
  const get = exchange({ method: 'GET', status: 404, statusLine: '404 Not Found' });
  test('named with its whole path, it fails with the finding', () => {
    const finding = `GET ${get.url} (404): status "ok" on HTTP 404 (expected "error")`;
    expect(namedBy(get, [finding])?.message).toBe(finding);
    expect(namedBy(get, [finding])?.name).toBe('AssertionError');
  });
  test('a longer path that starts with it, another method, or no finding leave it green', () => {
    expect(namedBy(get, [`GET ${get.url}/child (404): …`])).toBeUndefined();
    expect(namedBy(get, [`PUT ${get.url} (405): …`])).toBeUndefined();
    expect(namedBy(get, [])).toBeUndefined();
  });
});
