/**
 * Each fault of the chaos proxy, met by one client request: the error names what was seen, in one
 * sentence, within the request's bounds; huge answers are cut off at the cap, not buffered.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BmcClient } from '../../client/http.js';
import {
  ConnectionLostError,
  ResponseTooLargeError,
  TargetDownError,
  TargetTimeoutError,
  TlsError,
  TruncatedResponseError,
} from '../../client/errors.js';
import { onClientEvent, type ClientEvent } from '../../client/run-context.js';
import { startSimulator, type RunningSimulator } from '../../simulator/index.js';
import { startChaosProxy, type ChaosProxy, type Fault } from '../chaos/proxy.js';

const OBJECT = '/xyz/mgmt_project/inventory/system';
let sim: RunningSimulator;
let proxy: ChaosProxy;
/** The fault the next request to OBJECT meets. */
let next: Fault | undefined;
let refuseFrom = Infinity;

beforeAll(async () => {
  sim = await startSimulator();
  proxy = await startChaosProxy({
    upstream: sim.port,
    fault: (req) => (req.path === OBJECT ? next : undefined),
    refuseTls: (connection) => connection >= refuseFrom,
  });
});
afterAll(async () => {
  await proxy.close();
  await sim.close();
});

async function client(opts: Partial<ConstructorParameters<typeof BmcClient>[0]> = {}): Promise<BmcClient> {
  const c = new BmcClient({
    baseUrl: proxy.url,
    user: 'root',
    password: '0penBmc',
    insecure: true,
    timeoutMs: 3_000,
    connectTimeoutMs: 2_000,
    ...opts,
  });
  await c.login();
  return c;
}

async function meet(fault: Fault, opts: Partial<ConstructorParameters<typeof BmcClient>[0]> = {}): Promise<{ err: Error; ms: number }> {
  const c = await client(opts);
  next = fault;
  const t0 = performance.now();
  const err = await c.get(OBJECT).then(
    () => new Error('answered'),
    (e: Error) => e,
  );
  next = undefined;
  await c.close();
  return { err, ms: performance.now() - t0 };
}

describe('each network fault is named', () => {
  test('a reset', async () => {
    const { err } = await meet({ kind: 'reset' });
    expect(err).toBeInstanceOf(ConnectionLostError);
    expect(err.message).toBe(`The target reset the connection before GET ${OBJECT} got an answer.`);
    expect((err as ConnectionLostError).fault).toBe('connection reset');
  });

  test('a body cut short', async () => {
    const { err } = await meet({ kind: 'truncate' });
    expect(err).toBeInstanceOf(TruncatedResponseError);
    expect(err.message).toMatch(
      new RegExp(
        `^The answer to GET ${OBJECT} was cut short: the connection closed after \\d+ bytes of its body of the \\d+ it announced\\.$`,
      ),
    );
  });

  test('an answer that stops mid-body, within the request timeout', async () => {
    const { err, ms } = await meet({ kind: 'stall' }, { timeoutMs: 1_500 });
    expect(err).toBeInstanceOf(TargetTimeoutError);
    expect((err as TargetTimeoutError).fault).toBe('answer stalled');
    expect(err.message).toMatch(
      new RegExp(`^The answer to GET ${OBJECT} stalled: \\d+ bytes of its body arrived, then nothing for [\\d.]+ s; limit 1.5 s\\.$`),
    );
    expect(ms).toBeLessThan(10_000);
  });

  test('an answer trickling in a byte a second, within the request timeout', async () => {
    const { err, ms } = await meet({ kind: 'trickle' }, { timeoutMs: 2_500 });
    expect(err).toBeInstanceOf(TargetTimeoutError);
    expect((err as TargetTimeoutError).fault).toBe('answer trickled');
    expect(err.message).toMatch(/was still trickling in after 2.5 s: [1-9]\d* bytes of its body had arrived\.$/);
    expect(ms).toBeLessThan(10_000);
  });

  test('an HTML page from a front proxy is an answer, whose body says what it is', async () => {
    const c = await client();
    next = { kind: 'html', status: 502 };
    const res = await c.get(OBJECT);
    next = undefined;
    await c.close();
    expect(res.status).toBe(502);
    expect(res.json).toBeUndefined();
    expect(res.jsonError).toBe('an HTML page (text/html), not JSON: "502 Bad Gateway"');
  });

  test('a refused TLS handshake', async () => {
    const c = await client();
    refuseFrom = proxy.stats.connections + 1;
    // A new pool: its first request needs a new connection.
    const fresh = c.fork({ cookies: c.exportCookies() });
    const err = await fresh.get(OBJECT).then(
      () => new Error('answered'),
      (e: Error) => e,
    );
    refuseFrom = Infinity;
    await Promise.all([c.close(), fresh.close()]);
    expect(err).toBeInstanceOf(TlsError);
    expect(err.message).toBe(`TLS handshake with ${proxy.url} failed: the target closed the connection during the handshake.`);
  });
});

describe('a huge answer is cut off at the cap', () => {
  test('300 MiB announced: refused unread, memory unchanged', async () => {
    const before = process.memoryUsage().rss;
    const { err } = await meet({ kind: 'huge', bytes: 300 * 1024 * 1024 }, { maxResponseBytes: 4 * 1024 * 1024 });
    expect(err).toBeInstanceOf(ResponseTooLargeError);
    expect(err.message).toBe(`The answer to GET ${OBJECT} was cut off at the 4 MiB cap (--max-response-bytes): it announced 300 MiB.`);
    expect(process.memoryUsage().rss - before).toBeLessThan(64 * 1024 * 1024);
  });

  test('300 MiB unannounced: read up to the cap, then cut off', async () => {
    const before = process.memoryUsage().rss;
    const { err, ms } = await meet({ kind: 'huge', bytes: 300 * 1024 * 1024, chunked: true }, { maxResponseBytes: 4 * 1024 * 1024 });
    expect(err).toBeInstanceOf(ResponseTooLargeError);
    expect(err.message).toBe(`The answer to GET ${OBJECT} was cut off at the 4 MiB cap (--max-response-bytes): it was longer.`);
    expect(process.memoryUsage().rss - before).toBeLessThan(64 * 1024 * 1024);
    expect(ms).toBeLessThan(10_000);
  });
});

describe('a target that goes away', () => {
  test('is waited for while it restarts, and the request that met it names the outage', async () => {
    const c = await client({ outageWaitMs: 20_000 });
    const reported: ClientEvent[] = [];
    const stopListening = onClientEvent((e) => void (e.type === 'outage' && reported.push(e)));
    const restarting = proxy.restart(2);
    // Two requests meet the outage together: one wait, one report.
    const attempt = (): Promise<Error> =>
      c.get(OBJECT).then(
        () => new Error('answered'),
        (e: Error) => e,
      );
    const [err, other] = await Promise.all([attempt(), attempt()]);
    await restarting;
    stopListening();
    expect(err).toBeInstanceOf(TargetDownError);
    expect(other).toBeInstanceOf(TargetDownError);
    const outage = (err as TargetDownError).outage;
    expect(reported).toEqual([{ type: 'outage', outage }]);
    expect(outage).toMatchObject({ cause: 'connection refused', back: true });
    expect(outage.durationMs).toBeGreaterThanOrEqual(1_000);
    expect(err.message).toMatch(
      /^The target was unreachable from \d\d:\d\d:\d\d for [\d.]+ s \(connection refused\); it answers again, but this request got no answer\.$/,
    );
    expect((await c.get(OBJECT)).status).toBe(200);
    await c.close();
  });

  test('is given up on after the wait, and then requests fail at once', async () => {
    const c = await client({ outageWaitMs: 1_500 });
    const restarting = proxy.restart(3);
    const err = await c.get(OBJECT).then(
      () => new Error('answered'),
      (e: Error) => e,
    );
    expect(err).toBeInstanceOf(TargetDownError);
    expect((err as TargetDownError).outage.back).toBe(false);
    expect(err.message).toMatch(
      /^The target has been unreachable since \d\d:\d\d:\d\d \(waited [\d.]+ s\) \(connection refused\); the run no longer waits for it\.$/,
    );
    const sent = proxy.stats.connections;
    await expect(c.get(OBJECT)).rejects.toBeInstanceOf(TargetDownError);
    expect(proxy.stats.connections).toBe(sent);
    await restarting;
    await c.close();
  });
});
