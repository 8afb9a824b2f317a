import { describe, expect, test } from 'vitest';
import { EvidenceLog, redactText, type Exchange } from '../../client/evidence.js';

function exchange(over: Partial<Exchange> = {}): Exchange {
  return { at: new Date(0).toISOString(), method: 'GET', url: '/x', requestHeaders: {}, durationMs: 1, ...over };
}

describe('redaction', () => {
  test('redactText blanks raw, JSON-escaped and URL-encoded forms', () => {
    const pw = 'p"w d\\1';
    expect(redactText(`a ${pw} b ${JSON.stringify(pw).slice(1, -1)} c ${encodeURIComponent(pw)}`, [pw])).toBe('a *** b *** c ***');
    expect(redactText('ab', ['a'])).toBe('ab'); // too short to blank out safely
  });

  test('login bodies, password/token members and secret headers are redacted', () => {
    const log = new EvidenceLog({ secrets: ['hunter22'] });
    log.record(
      exchange({
        method: 'POST',
        url: '/login',
        requestHeaders: {
          cookie: 'a=1; SESSION=abc',
          'x-xsrf-token': 't',
          authorization: 'Basic x',
          'sec-websocket-protocol': 'p',
          accept: 'application/json',
        },
        requestBody: '{"data":["root","other-pass"]}',
        status: 200,
        responseHeaders: { 'set-cookie': ['SESSION=abc; Path=/; Secure; HttpOnly', 'XSRF-TOKEN=zz; Path=/'], 'x-auth-token': 'tok' },
        responseBody: '{"token":"tok","data":{"Password":"x","nested":[{"UserPassword":"y","authToken":"z","keep":1}]},"note":"hunter22"}',
      }),
    );
    const [e] = log.entries();
    expect(e?.requestBody).toBe('{"data":["root","***"]}');
    expect(e?.requestHeaders).toEqual({
      cookie: 'a=<redacted>; SESSION=<redacted>',
      'x-xsrf-token': '<redacted>',
      authorization: '<redacted>',
      'sec-websocket-protocol': '<redacted>',
      accept: 'application/json',
    });
    expect(e?.responseHeaders).toEqual({
      'set-cookie': ['SESSION=<redacted>; Path=/; Secure; HttpOnly', 'XSRF-TOKEN=<redacted>; Path=/'],
      'x-auth-token': '<redacted>',
    });
    expect(e?.responseBody).toBe(
      '{"token":"***","data":{"Password":"***","nested":[{"UserPassword":"***","authToken":"***","keep":1}]},"note":"***"}',
    );
  });

  test('non-JSON bodies and URLs get secret-string redaction; bodies are truncated', () => {
    const log = new EvidenceLog();
    log.addSecret('topsecret');
    log.record(
      exchange({ url: '/x?pw=topsecret', requestBody: `{"data":["root","topsecret"` + 'x'.repeat(5000), responseBody: 'y'.repeat(9000) }),
    );
    const [e] = log.entries();
    expect(e?.url).toBe('/x?pw=***');
    expect(e?.requestBody?.startsWith('{"data":["root","***"')).toBe(true);
    expect(e?.requestBody?.length).toBeLessThan(4 * 1024 + 80);
    expect(e?.responseBody).toMatch(/…\[truncated, 9000 characters in total\]$/);
  });
});

test('bodies without credentials are kept exactly as received', () => {
  const log = new EvidenceLog();
  const body = '{ "data" : {"Big": 18446744073709551615, "x": 1.50},\n "status": "ok" }';
  log.record(exchange({ responseBody: body }));
  expect(log.entries()[0]?.responseBody).toBe(body);
});

describe('EvidenceLog', () => {
  test('keeps the last 200 entries; mark/since and take', () => {
    const log = new EvidenceLog();
    for (let i = 0; i < 250; i++) log.record(exchange({ url: `/${i}` }));
    expect(log.entries()).toHaveLength(200);
    expect(log.entries()[0]?.url).toBe('/50');
    const m = log.mark();
    log.record(exchange({ url: '/after' }));
    expect(log.since(m).map((e) => e.url)).toEqual(['/after']);
    expect(log.since(0)).toHaveLength(200);
    expect(log.take()).toHaveLength(200);
    expect(log.entries()).toHaveLength(0);
    expect(log.since(m)).toHaveLength(0);
  });

  test('leaves out absent fields', () => {
    const log = new EvidenceLog();
    log.record(exchange({ error: 'Cannot reach x.' }));
    expect(Object.keys(log.entries()[0] ?? {}).sort()).toEqual(['at', 'durationMs', 'error', 'method', 'requestHeaders', 'url']);
  });

  test('a huge body is cut before it is redacted, and a secret across the cut still never shows', () => {
    const log = new EvidenceLog({ secrets: ['S3cretPassw0rd'] });
    for (const at of [4090, 4095, 4100]) {
      const body = `${'x'.repeat(at)}S3cretPassw0rd${'y'.repeat(2 * 1024 * 1024)}`;
      log.record(exchange({ method: 'POST', requestBody: body }));
      const kept = log.entries().at(-1)!.requestBody!;
      expect(kept).not.toMatch(/S3cret|Passw0rd|S3c|rd$/);
      expect(kept).toMatch(/truncated, \d{7} characters in total/);
    }
  });
});
