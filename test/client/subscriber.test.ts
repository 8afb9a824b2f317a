import type { IncomingMessage } from 'node:http';
import { afterEach, describe, expect, test } from 'vitest';
import type { WebSocket } from 'ws';
import { BmcClient } from '../../client/http.js';
import { SubscriptionError, TargetTimeoutError } from '../../client/errors.js';
import { EvidenceLog } from '../../client/evidence.js';
import { EventSubscriber, subscribeUrl } from '../../client/subscriber.js';
import { startWss, type UpgradeDecision, type WsTestServer } from './servers.js';

const SESSION = 'sid=ws-session-0123456789';
const XSRF = 'xsrf0123456789abcdef';

const servers: WsTestServer[] = [];
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** A client that already holds a session cookie and an XSRF cookie (as after a bmcweb login). */
function loggedInClient(server: WsTestServer, withXsrf = true, evidence?: EvidenceLog): BmcClient {
  const seed = new BmcClient({ baseUrl: server.url, user: 'root', password: 'pw', insecure: true });
  const cookies = seed.exportCookies();
  cookies.cookies.push(
    { key: 'sid', value: 'ws-session-0123456789', domain: '127.0.0.1', path: '/', hostOnly: true, secure: true },
    ...(withXsrf ? [{ key: 'XSRF-TOKEN', value: XSRF, domain: '127.0.0.1', path: '/', hostOnly: true, secure: true }] : []),
  );
  const c = new BmcClient({ baseUrl: server.url, user: 'root', password: 'pw', insecure: true, cookies, evidence });
  closers.push(
    () => seed.close(),
    () => c.close(),
  );
  return c;
}

const hasSession = (req: IncomingMessage): boolean => (req.headers.cookie ?? '').includes(SESSION);

async function serve(
  decide: (req: IncomingMessage) => UpgradeDecision,
  onConnection: (ws: WebSocket, req: IncomingMessage) => void = () => undefined,
): Promise<WsTestServer> {
  const s = await startWss(decide, onConnection);
  servers.push(s);
  return s;
}

function track(sub: EventSubscriber): EventSubscriber {
  closers.push(() => sub.close());
  return sub;
}

/** Echo server: after the filter arrives, pushes the events listed in it under "emit". */
function emitter(ws: WebSocket): void {
  ws.on('message', (raw: Buffer) => {
    const filter = JSON.parse(raw.toString()) as { emit?: unknown[]; delayMs?: number };
    (filter.emit ?? []).forEach((e, i) =>
      setTimeout(() => ws.send(typeof e === 'string' ? e : JSON.stringify(e)), (filter.delayMs ?? 0) * (i + 1)),
    );
  });
}

describe('EventSubscriber', () => {
  test('builds wss://…/subscribe from the base URL', () => {
    expect(subscribeUrl('https://10.0.0.1:8443')).toBe('wss://10.0.0.1:8443/subscribe');
    expect(subscribeUrl('https://bmc/')).toBe('wss://bmc/subscribe');
  });

  test('sends cookie, XSRF subprotocol and the filter; records events in order, losslessly', async () => {
    let filterText = '';
    const s = await serve(
      (req) => (hasSession(req) ? { accept: true, protocol: XSRF } : { accept: false, status: 401 }),
      (ws) =>
        ws.on('message', (raw: Buffer) => {
          filterText = raw.toString();
          ws.send('{"event":"PropertiesChanged","path":"/a","interface":"i","properties":{"Big":18446744073709551615}}');
          ws.send('not json');
        }),
    );
    const sub = track(await EventSubscriber.open(loggedInClient(s), { paths: ['/a'] }));
    const e = await sub.waitFor((d) => (d as { path?: string }).path === '/a', 2_000);
    await sub.waitForCount(() => true, 2, 2_000);
    expect(filterText).toBe('{"paths":["/a"]}');
    expect(s.upgrades[0]?.headers['sec-websocket-protocol']).toBe(XSRF);
    expect((e.data as { properties: { Big: unknown } }).properties.Big).toBe(18446744073709551615n);
    expect(sub.events.map((x) => x.seq)).toEqual([0, 1]);
    expect(sub.events[1]?.data).toBeUndefined();
    expect(sub.events[1]?.raw).toBe('not json');
  });

  test('accepts a server that does not echo the subprotocol; raw filter text is sent as is', async () => {
    let filterText = '';
    const s = await serve(
      () => ({ accept: true }),
      (ws) => ws.on('message', (raw: Buffer) => (filterText = raw.toString())),
    );
    const outcome = await EventSubscriber.tryOpen(loggedInClient(s), null, { raw: '{"paths": [1,', settleMs: 100 });
    expect(outcome.kind).toBe('open');
    if (outcome.kind === 'open') track(outcome.subscriber);
    expect(filterText).toBe('{"paths": [1,');
  });

  test('a refused handshake is an outcome for tryOpen and an error for open', async () => {
    const s = await serve((req) => (hasSession(req) ? { accept: true } : { accept: false, status: 401 }));
    const c = loggedInClient(s);
    expect(await EventSubscriber.tryOpen(c, {}, { auth: false })).toEqual({ kind: 'refused', status: 401 });
    expect(s.upgrades[0]?.headers.cookie).toBeUndefined();
    expect(s.upgrades[0]?.headers['sec-websocket-protocol']).toBeUndefined();
    const err = await EventSubscriber.open(c, {}, { auth: false }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SubscriptionError);
    expect((err as Error).message).toBe(
      `The WebSocket subscription to ${s.url.replace('https', 'wss')}/subscribe was refused (401 Unauthorized).`,
    );
  });

  test('a socket the server closes right away is a "closed" outcome', async () => {
    const s = await serve(
      () => ({ accept: true }),
      (ws) => ws.close(1008, 'no session'),
    );
    const outcome = await EventSubscriber.tryOpen(loggedInClient(s, false), {}, { settleMs: 500 });
    expect(outcome).toEqual({ kind: 'closed', code: 1008, reason: 'no session' });
  });

  test('waitFor times out with a message listing what did arrive', async () => {
    const s = await serve(() => ({ accept: true }), emitter);
    const sub = track(
      await EventSubscriber.open(loggedInClient(s), {
        emit: [{ event: 'PropertiesChanged', path: '/x', interface: 'i', properties: { A: 1 } }],
      }),
    );
    await sub.waitFor(() => true, 2_000);
    const t0 = performance.now();
    const err = await sub.waitFor((d) => (d as { path?: string }).path === '/nope', 150).catch((e: unknown) => e);
    expect(performance.now() - t0).toBeLessThan(1_000);
    expect(err).toBeInstanceOf(TargetTimeoutError);
    expect((err as Error).message).toBe(
      'On /subscribe a matching event did not arrive within 150 ms; 1 other event(s) arrived: #0 {"event":"PropertiesChanged","path":"/x","interface":"i","properties":{"A":1}}.',
    );
  });

  test('waitFor fails early when the socket closes', async () => {
    const s = await serve(
      () => ({ accept: true }),
      (ws) => ws.on('message', () => setTimeout(() => ws.close(1011, 'bye'), 50)),
    );
    const sub = track(await EventSubscriber.open(loggedInClient(s), {}));
    const t0 = performance.now();
    await expect(sub.waitFor(() => true, 5_000)).rejects.toThrow(
      /closed \(code 1011\) before a matching event arrived; no event arrived at all/,
    );
    expect(performance.now() - t0).toBeLessThan(2_000);
    expect(sub.closed).toBe(true);
    expect(sub.closeInfo).toEqual({ code: 1011, reason: 'bye' });
  });

  test('waitFor honours `from`; expectQuiet passes on silence and fails on a match', async () => {
    const s = await serve(() => ({ accept: true }), emitter);
    const sub = track(await EventSubscriber.open(loggedInClient(s), { emit: [{ n: 1 }, { n: 2 }, { n: 3 }], delayMs: 30 }));
    await sub.waitForCount(() => true, 3, 2_000);
    await expect(sub.waitFor((d) => (d as { n: number }).n === 1, 100, { from: 1 })).rejects.toThrow(/did not arrive/);
    await expect(sub.expectQuiet(() => true, 100)).resolves.toBeUndefined();
    await expect(sub.expectQuiet((d) => (d as { n: number }).n === 2, 50, { from: 0 })).rejects.toThrow(
      'On /subscribe an event arrived that should not have: {"n":2}.',
    );
  });

  test('expectQuiet fails as soon as a matching event arrives inside the window', async () => {
    let socket: WebSocket | undefined;
    const s = await serve(
      () => ({ accept: true }),
      (ws) => (socket = ws),
    );
    const sub = track(await EventSubscriber.open(loggedInClient(s), {}));
    setTimeout(() => socket?.send('{"late":true}'), 50);
    const t0 = performance.now();
    await expect(sub.expectQuiet(() => true, 3_000)).rejects.toThrow(/should not have/);
    expect(performance.now() - t0).toBeLessThan(1_500);
  });

  test('answers server pings', async () => {
    let pong = false;
    const s = await serve(
      () => ({ accept: true }),
      (ws) => {
        ws.on('pong', () => (pong = true));
        ws.ping();
      },
    );
    const sub = track(await EventSubscriber.open(loggedInClient(s), {}));
    for (let i = 0; i < 50 && !pong; i++) await new Promise((r) => setTimeout(r, 20));
    expect(pong).toBe(true);
    expect(sub.closed).toBe(false);
  });

  test('close() ends the socket; the handshake evidence is redacted', async () => {
    const evidence = new EvidenceLog();
    const s = await serve(() => ({ accept: true, protocol: XSRF }));
    const sub = await EventSubscriber.open(loggedInClient(s, true, evidence), {});
    await sub.close();
    expect(sub.closed).toBe(true);
    const text = JSON.stringify(evidence.entries());
    expect(evidence.entries()[0]?.status).toBe(101);
    expect(text).not.toContain(XSRF);
    expect(text).not.toContain('ws-session-0123456789');
  });

  test('network failures are thrown classified', async () => {
    const s = await serve(() => ({ accept: true }));
    const strict = new BmcClient({ baseUrl: s.url, user: 'root', password: 'pw' });
    closers.push(() => strict.close());
    await expect(EventSubscriber.tryOpen(strict, {})).rejects.toThrow(/self-signed certificate; pass --insecure/);
  });
});
