import { afterEach, describe, expect, test } from 'vitest';
import { BmcClient } from '../../client/http.js';
import {
  BmcClientError,
  ConnectionLostError,
  TargetTimeoutError,
  TlsError,
  UnreachableError,
  classifyNetworkError,
} from '../../client/errors.js';
import { closedPort, envelope, sendJson, startHttp, startHttps, type TestServer } from './servers.js';

const servers: TestServer[] = [];
const clients: BmcClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

function client(baseUrl: string, insecure: boolean): BmcClient {
  const c = new BmcClient({ baseUrl, user: 'root', password: 'pw', insecure, timeoutMs: 5_000, connectTimeoutMs: 2_000 });
  clients.push(c);
  return c;
}

describe('transport failures against real sockets', () => {
  test('a self-signed certificate without --insecure is a TlsError naming the fix', async () => {
    const s = await startHttps((_req, res) => sendJson(res, 200, envelope(200, null)));
    servers.push(s);
    const err = await client(s.url, false)
      .get('/')
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TlsError);
    expect((err as Error).message).toBe(`TLS handshake with ${s.url} failed: self-signed certificate; pass --insecure to accept it.`);
    expect((await client(s.url, true).get('/')).status).toBe(200);
  });

  test('a refused connection is an UnreachableError', async () => {
    const port = await closedPort();
    const url = `https://127.0.0.1:${port}`;
    const err = await client(url, true)
      .get('/')
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnreachableError);
    expect((err as Error).message).toBe(`Cannot reach ${url}: connection refused.`);
  });

  test('a plain HTTP server behind an https:// URL is a TlsError that says so', async () => {
    const s = await startHttp((_req, res) => sendJson(res, 200, envelope(200, null)));
    servers.push(s);
    const url = s.url.replace('http:', 'https:');
    const err = await client(url, true)
      .get('/')
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TlsError);
    expect((err as Error).message).toMatch(/^TLS handshake with https:\/\/127\.0\.0\.1:\d+ failed: the port does not speak TLS/);
  });

  test('a connection dropped mid-request is a ConnectionLostError', async () => {
    const s = await startHttps((_req, res) => {
      res.socket?.destroy();
    });
    servers.push(s);
    const err = await client(s.url, true)
      .get('/xyz/a')
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectionLostError);
    expect((err as Error).message).toMatch(/^The connection to https:\/\/127\.0\.0\.1:\d+ broke before GET \/xyz\/a got a complete answer/);
  });
});

describe('classifyNetworkError', () => {
  const base = 'https://10.0.0.5:443/';
  const coded = (code: string, message = code): Error => Object.assign(new Error(message), { code });

  test.each([
    [
      'ERR_TLS_CERT_ALTNAME_INVALID',
      TlsError,
      'TLS handshake with https://10.0.0.5 failed: the certificate does not name this host; pass --insecure to accept it.',
    ],
    [
      'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
      TlsError,
      'TLS handshake with https://10.0.0.5 failed: the certificate is not signed by a trusted authority; pass --insecure to accept it.',
    ],
    [
      'CERT_HAS_EXPIRED',
      TlsError,
      'TLS handshake with https://10.0.0.5 failed: the certificate has expired; pass --insecure to accept it.',
    ],
    ['ENOTFOUND', UnreachableError, 'Cannot reach https://10.0.0.5: host name not found.'],
    ['EHOSTUNREACH', UnreachableError, 'Cannot reach https://10.0.0.5: host unreachable.'],
    ['UND_ERR_CONNECT_TIMEOUT', UnreachableError, 'Cannot reach https://10.0.0.5: no answer to the connection attempt.'],
  ])('%s', (code, type, message) => {
    const err = classifyNetworkError(coded(code), base);
    expect(err).toBeInstanceOf(type);
    expect(err.message).toBe(message);
  });

  test('EPROTO with "wrong version number" means an http server', () => {
    const err = classifyNetworkError(coded('EPROTO', 'C0:error:0A00010B:SSL routines:ssl3_get_record:wrong version number'), base);
    expect(err).toBeInstanceOf(TlsError);
    expect(err.message).toContain('does not speak TLS');
  });

  test('looks through cause chains and AggregateErrors', () => {
    const agg = new AggregateError([coded('ECONNREFUSED')], 'connect failed');
    expect(classifyNetworkError(agg, base)).toBeInstanceOf(UnreachableError);
    const wrapped = new Error('fetch failed', { cause: coded('DEPTH_ZERO_SELF_SIGNED_CERT') });
    expect(classifyNetworkError(wrapped, base)).toBeInstanceOf(TlsError);
  });

  test('header/body timeouts name the request and the limit', () => {
    const err = classifyNetworkError(coded('UND_ERR_HEADERS_TIMEOUT'), base, { method: 'GET', path: '/enumerate', timeoutMs: 120_000 });
    expect(err).toBeInstanceOf(TargetTimeoutError);
    expect(err.message).toBe('The target did not answer GET /enumerate within 120 s.');
  });

  test('unknown failures still give one sentence; classified errors pass through', () => {
    const err = classifyNetworkError(new Error('something odd.'), base, { method: 'PUT', path: '/x' });
    expect(err).toBeInstanceOf(BmcClientError);
    expect(err.message).toBe('Request PUT /x to https://10.0.0.5 failed: something odd.');
    expect(classifyNetworkError(err, base)).toBe(err);
  });
});
