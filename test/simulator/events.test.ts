import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSimulator } from '../../simulator/index.js';
import { buildImageTarball } from '../../simulator/image-archive.js';
import { I, login, openSocket, ROOT, sleep, startWithSession, subscribe, type Session } from './helpers.js';

let s: Session;
const SYSTEM = `${ROOT}/inventory/system`;
const CAP = `${ROOT}/control/power_cap`;
const LED = `${ROOT}/led/groups/enclosure_identify`;

beforeAll(async () => {
  s = await startWithSession();
});
afterAll(() => s.sim.close());
beforeEach(async () => {
  await s.post(`${ROOT}/software/action/Reset`, []);
});

describe('subscription', () => {
  it('{} receives every PropertiesChanged and InterfacesAdded, with the spec shapes', async () => {
    const sub = await subscribe(s.sim.url, s.cookie, {});
    await s.put(`${SYSTEM}/attr/AssetTag`, 'EV-1');
    await s.put(`${LED}/attr/Asserted`, true);
    const up = await s.call('POST', '/upload/image', {
      raw: buildImageTarball({ version: 'event-upload' }),
      contentType: 'application/octet-stream',
    });
    const msgs = await sub.waitFor(3);
    expect(msgs[0]).toEqual({
      event: 'PropertiesChanged',
      path: SYSTEM,
      interface: `${I}.Inventory.Decorator.AssetTag`,
      properties: { AssetTag: 'EV-1' },
    });
    expect(msgs[1]).toEqual({ event: 'PropertiesChanged', path: LED, interface: `${I}.Led.Group`, properties: { Asserted: 1 } });
    expect(msgs[2].event).toBe('InterfacesAdded');
    expect(msgs[2].path).toBe(`${ROOT}/software/${up.body.data}`);
    await sleep(50);
    expect(msgs).toHaveLength(3);
    sub.close();
  });

  it('nothing is sent before the filter, and writing an unchanged value emits nothing', async () => {
    const ws = openSocket(s.sim.url, s.cookie);
    const early: string[] = [];
    ws.on('message', (d) => early.push(d.toString()));
    await new Promise((r) => ws.once('open', r));
    await s.put(`${SYSTEM}/attr/AssetTag`, 'BEFORE-FILTER');
    await sleep(50);
    expect(early).toEqual([]);
    ws.send('{}');
    await sleep(30);
    await s.put(`${SYSTEM}/attr/AssetTag`, 'BEFORE-FILTER'); // unchanged
    await s.put(`${SYSTEM}/attr/AssetTag`, 'AFTER-FILTER');
    await sleep(100);
    expect(early.map((t) => JSON.parse(t).properties.AssetTag)).toEqual(['AFTER-FILTER']);
    ws.terminate();
  });

  it('paths admits only the listed originating paths', async () => {
    const sub = await subscribe(s.sim.url, s.cookie, { paths: [CAP] });
    await s.put(`${SYSTEM}/attr/AssetTag`, 'P-1');
    await s.put(`${CAP}/attr/PowerCap`, 501);
    await s.put(`${ROOT}/control/power_cap/attr/PowerCapEnable`, true);
    await sub.waitFor(2);
    await sleep(50);
    expect(sub.messages.map((m) => m.path)).toEqual([CAP, CAP]);
    sub.close();
  });

  it('interfaces admits PropertiesChanged of the interface and InterfacesAdded naming it', async () => {
    const sub = await subscribe(s.sim.url, s.cookie, { interfaces: [`${I}.Led.Group`, `${I}.Software.Activation`] });
    await s.put(`${SYSTEM}/attr/AssetTag`, 'I-1');
    await s.put(`${LED}/attr/Asserted`, 1);
    await s.call('POST', '/upload/image', { raw: buildImageTarball({ version: 'iface-filter' }), contentType: 'application/octet-stream' });
    await sub.waitFor(2);
    await sleep(50);
    expect(sub.messages.map((m) => m.event)).toEqual(['PropertiesChanged', 'InterfacesAdded']);
    expect(sub.messages[0].interface).toBe(`${I}.Led.Group`);
    sub.close();
  });

  it('paths and interfaces together are ORed', async () => {
    const sub = await subscribe(s.sim.url, s.cookie, { paths: [SYSTEM], interfaces: [`${I}.Led.Group`] });
    await s.put(`${SYSTEM}/attr/AssetTag`, 'OR-1'); // path matches
    await s.put(`${LED}/attr/Asserted`, 1); // interface matches
    await s.put(`${CAP}/attr/PowerCap`, 123); // neither
    await sub.waitFor(2);
    await sleep(50);
    expect(sub.messages.map((m) => m.path)).toEqual([SYSTEM, LED]);
    sub.close();
  });

  it('empty lists admit nothing', async () => {
    const sub = await subscribe(s.sim.url, s.cookie, { paths: [], interfaces: [] });
    await s.put(`${SYSTEM}/attr/AssetTag`, 'NONE');
    await sleep(80);
    expect(sub.messages).toEqual([]);
    sub.close();
  });

  it('delivers many writes from concurrent writers in the same order to every subscriber, exactly once', async () => {
    const subs = await Promise.all([0, 1, 2].map(() => subscribe(s.sim.url, s.cookie, { paths: [SYSTEM, CAP] })));
    const N = 150;
    await Promise.all(
      Array.from({ length: N }, (_, i) => (i % 2 ? s.put(`${SYSTEM}/attr/AssetTag`, `ORD-${i}`) : s.put(`${CAP}/attr/PowerCap`, 1000 + i))),
    );
    for (const sub of subs) await sub.waitFor(N, 5000);
    await sleep(50);
    const seqs = subs.map((sub) => sub.messages.map((m) => JSON.stringify(m.properties)));
    expect(seqs[0]).toHaveLength(N);
    expect(new Set(seqs[0]).size).toBe(N);
    expect(seqs[1]).toEqual(seqs[0]);
    expect(seqs[2]).toEqual(seqs[0]);
    // Sequential writes arrive in write order.
    const seq = await subscribe(s.sim.url, s.cookie, { paths: [SYSTEM] });
    for (let i = 0; i < 30; i++) await s.put(`${SYSTEM}/attr/AssetTag`, `SEQ-${i}`);
    await seq.waitFor(30);
    expect(seq.messages.map((m) => m.properties.AssetTag)).toEqual(Array.from({ length: 30 }, (_, i) => `SEQ-${i}`));
    for (const sub of [...subs, seq]) sub.close();
  });

  it.each([
    ['not JSON', 'nope'],
    ['an array', '[]'],
    ['a string', '"x"'],
    ['null', 'null'],
    ['paths not an array', '{"paths": "/xyz"}'],
    ['interfaces with a number', '{"interfaces": [1]}'],
  ])('a malformed filter (%s) closes only that socket with 1008', async (_n, filter) => {
    const good = await subscribe(s.sim.url, s.cookie, {});
    const bad = await subscribe(s.sim.url, s.cookie, filter);
    const closed = await bad.closed;
    expect(closed.code).toBe(1008);
    expect(closed.reason.length).toBeGreaterThan(0);
    await s.put(`${SYSTEM}/attr/AssetTag`, `ISO-${_n}`);
    await good.waitFor(1);
    expect(good.ws.readyState).toBe(good.ws.OPEN);
    good.close();
  });

  it('the handshake is only on /subscribe', async () => {
    const { default: WebSocket } = await import('ws');
    const ws = new WebSocket(s.sim.url.replace('https', 'wss') + '/other', { headers: { cookie: s.cookie }, rejectUnauthorized: false });
    const status = await new Promise<number>((resolve) => {
      ws.on('unexpected-response', (_q, res) => resolve(res.statusCode ?? 0));
      ws.on('open', () => resolve(101));
      ws.on('error', () => undefined);
    });
    expect(status).toBe(404);
  });
});

describe('pings', () => {
  it('pings subscribers and terminates one that stops answering', async () => {
    const sim = await startSimulator({ pingIntervalMs: 100 });
    try {
      const cookie = await login(sim.url);
      const alive = await subscribe(sim.url, cookie, {});
      let pings = 0;
      alive.ws.on('ping', () => pings++);
      const mute = await subscribe(sim.url, cookie, {});
      // Stop the client's automatic pong replies.
      (mute.ws as unknown as { pong: () => void }).pong = () => undefined;
      const closed = await mute.closed;
      expect(closed.code).toBe(1006);
      expect(pings).toBeGreaterThanOrEqual(1);
      expect(alive.ws.readyState).toBe(alive.ws.OPEN);
      alive.close();
    } finally {
      await sim.close();
    }
  });
});
