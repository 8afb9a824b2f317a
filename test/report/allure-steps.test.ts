/** Allure steps: a request answered with a server error, or not answered, is drawn as a failed step. */
import { describe, expect, test } from 'vitest';
import { stepFailure } from '../../report/allure-test.js';
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
