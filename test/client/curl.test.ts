import { execFileSync } from 'node:child_process';
import { describe, expect, test } from 'vitest';
import { shellQuote, toCurl } from '../../client/curl.js';

/** What bash makes of quoted words: one argument each, in one bash (a process costs a test worker much). */
function bashWords(words: readonly string[]): string[] {
  const out = execFileSync('bash', ['-c', `printf '%s\\0' ${words.join(' ')}`]).toString('utf8');
  return out.split('\0').slice(0, -1);
}

describe('toCurl', () => {
  test('one line, -k, cookie placeholder, exact path and body', () => {
    const line = toCurl('PUT', 'https://10.0.0.1:443/', "/xyz/a b/attr/It's", { body: '{"data":"x\'y"}', contentType: 'application/json' });
    expect(line).toBe(
      `curl -k -sS -i --path-as-is -g -X PUT -b "$COOKIE" -H 'Accept: application/json' -H 'Content-Type: application/json' --data-raw '{"data":"x'\\''y"}' 'https://10.0.0.1:443/xyz/a b/attr/It'\\''s'`,
    );
    expect(line).not.toContain('\n');
  });

  test('no credentials when auth is false; XSRF placeholder on request', () => {
    expect(toCurl('GET', 'https://h', '/', { auth: false })).not.toContain('COOKIE');
    expect(toCurl('POST', 'https://h', '/', { xsrf: true })).toContain(`-H "X-XSRF-TOKEN: $XSRF"`);
  });

  test('cookies and tokens as named shell variables, a body already written for the shell (a file, $PASSWORD)', () => {
    const base = 'https://127.0.0.1:8443';
    expect(
      toCurl('POST', base, '/upload/image', {
        auth: '$COOKIE_A',
        xsrf: '$XSRF_A',
        contentType: 'application/octet-stream',
        shellBody: ['--data-binary', '@V1.tar'],
      }),
    ).toBe(
      `curl -k -sS -i --path-as-is -g -X POST -b "$COOKIE_A" -H "X-XSRF-TOKEN: $XSRF_A" -H 'Accept: application/json' -H 'Content-Type: application/octet-stream' --data-binary @V1.tar https://127.0.0.1:8443/upload/image`,
    );
    const login = toCurl('POST', base, '/login', {
      auth: false,
      contentType: 'application/json',
      shellBody: ['--data-raw', '"{\\"data\\": [\\"root\\", \\"$PASSWORD\\"]}"'],
    });
    expect(login).toContain(`--data-raw "{\\"data\\": [\\"root\\", \\"$PASSWORD\\"]}" https://127.0.0.1:8443/login`);
    expect(login).not.toContain('-b');
  });

  test('quoting survives bash, including non-ASCII text', () => {
    const words = ["it's", 'a b', '$HOME', 'ü\tx', '`id`', ''];
    expect(bashWords(words.map(shellQuote))).toEqual(words);
  });

  test('binary bodies go through printf', () => {
    const line = toCurl('POST', 'https://h', '/upload/image', {
      body: Buffer.from([0, 0x27, 0x25, 0xff, 0x41]),
      contentType: 'application/octet-stream',
    });
    const arg = /--data-binary @<\(printf '([^']*)'\)/.exec(line)?.[1];
    expect(arg).toBeDefined();
    const bytes = execFileSync('bash', ['-c', `printf '${arg}'`]);
    expect([...bytes]).toEqual([0, 0x27, 0x25, 0xff, 0x41]);
  });
});
