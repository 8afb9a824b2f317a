/**
 * The event scenario's accounting can fail: a simulator that drops or duplicates events is caught,
 * and a clean one delivers everything. Also the subscriber and session capacity probes.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import { WebSocketServer, type WebSocket } from 'ws';
import { BmcClient } from '../../client/http.js';
import { runEventScenario } from '../../load/events.js';
import { measureSessionCapacity } from '../../load/capacity/sessions.js';
import { measureSubscriberCapacity } from '../../load/capacity/subscribers.js';
import { prepareWrites, restoreOriginals } from '../../load/write-mix.js';
import { simulatorTargetProfile, startSimulator, type DialectName, type RunningSimulator } from '../../simulator/index.js';

const NS = 'mgmt_project';
let sim: RunningSimulator | undefined;
let client: BmcClient | undefined;

async function start(faults: string[], dialect?: DialectName): Promise<BmcClient> {
  sim = await startSimulator({ faults, ...(dialect && { dialect }) });
  client = new BmcClient({ baseUrl: sim.url, user: 'root', password: '0penBmc', insecure: true, timeoutMs: 5_000 });
  await client.login();
  return client;
}

afterEach(async () => {
  await client?.close();
  await sim?.close();
  client = undefined;
  sim = undefined;
});

async function eventRun(faults: string[]) {
  const c = await start(faults);
  // Two objects: odd subscribers watch only the first, so filtering is part of the account.
  const { cycles } = await prepareWrites(c, simulatorTargetProfile(NS).writable.slice(0, 2));
  try {
    return await runEventScenario({
      client: c,
      cycles,
      subscribers: 4,
      writeRate: 20,
      durationS: 1,
      maxWrites: 1_000,
      eventTimeoutMs: 1_000,
      abortErrorRate: 0.5,
    });
  } finally {
    await restoreOriginals(c, cycles);
  }
}

describe('event scenario', () => {
  test('on the clean simulator every subscriber gets each event its filter admits, once', async () => {
    const { events, writes } = await eventRun([]);
    expect(writes.failed).toBe(0);
    expect(events.live).toBe(4);
    expect(events.writes).toBe(20);
    // Even subscribers watch both objects (20 events), odd ones only the first (10).
    expect(events.perSubscriber.map((s) => s.expected)).toEqual([20, 10, 20, 10]);
    expect(events).toMatchObject({ expected: 60, delivered: 60, lost: 0, duplicated: 0, unexpected: 0 });
    expect(events.latency.count).toBe(60);
    expect(events.latency.p50).toBeGreaterThan(0);
  });

  test('dropped events are counted as lost', async () => {
    const { events } = await eventRun(['events-dropped']);
    expect(events.lost).toBeGreaterThan(0);
    expect(events.duplicated).toBe(0);
  });

  test('events pushed twice are counted as duplicated', async () => {
    const { events } = await eventRun(['events-duplicated']);
    expect(events.duplicated).toBeGreaterThanOrEqual(events.expected - events.lost);
    expect(events.lost).toBe(0);
  });
});

describe('capacity probes', () => {
  test('subscribers: all up to the bound stay open and deliver', async () => {
    const c = await start([]);
    const { cycles } = await prepareWrites(c, simulatorTargetProfile(NS).writable.slice(0, 1));
    const r = await measureSubscriberCapacity(c, { bound: 12, namespace: NS, probe: cycles[0], eventTimeoutMs: 1_000 });
    await restoreOriginals(c, cycles);
    expect(r).toMatchObject({ subscribers: 12, stoppedBy: 'bound', delivering: 12 });
  });

  // Without a writable attribute (the read-only profile) the probe used to send {}, which bmcweb
  // closes ("Unable to find paths in json data"): it reported 0 held, evicted.
  test.each(['bmcweb', 'bmcweb@2023', 'phosphor-rest', 'spec'] as const)(
    'subscribers: %s holds every subscription of a path filter, writable attribute or not',
    async (dialect) => {
      const c = await start([], dialect);
      const r = await measureSubscriberCapacity(c, { bound: 6, namespace: NS, eventTimeoutMs: 500 });
      expect(r).toMatchObject({ subscribers: 6, stoppedBy: 'bound', filter: { paths: [`/xyz/${NS}`] } });
    },
  );

  test('subscribers: a server that holds one at a time is counted as holding one, and says what it closed', async () => {
    const t = await oneAtATime();
    try {
      const r = await measureSubscriberCapacity(t.client, { bound: 5, namespace: NS, eventTimeoutMs: 500 });
      expect(r).toMatchObject({ subscribers: 1, stoppedBy: 'evicted' });
      expect(r.detail).toMatch(
        /^subscription 1 was closed \(code 1008, "one subscriber at a time"\) by the time subscription [23] had opened; 1 of the [23] opened stayed open$/,
      );
    } finally {
      await t.close();
    }
  });

  test('subscribers: a server that closes the filter holds none, and says why', async () => {
    const t = await oneAtATime('Unable to find paths in json data');
    try {
      const r = await measureSubscriberCapacity(t.client, { bound: 5, namespace: NS, eventTimeoutMs: 500 });
      expect(r).toMatchObject({
        subscribers: 0,
        stoppedBy: 'closed',
        detail: 'subscription 1 was closed at once (code 1000, "Unable to find paths in json data")',
      });
    } finally {
      await t.close();
    }
  });

  test('subscribers: a server that refuses the handshake stops the probe at once', async () => {
    const c = await start([]);
    await c.logout();
    const r = await measureSubscriberCapacity(c, { bound: 5, namespace: NS, eventTimeoutMs: 500 });
    expect(r).toMatchObject({ subscribers: 0, stoppedBy: 'refused' });
  });

  test('sessions: logins up to the bound are held, then every one is logged out', async () => {
    const c = await start([]);
    const r = await measureSessionCapacity(c, { user: 'root', password: '0penBmc', namespace: NS, bound: 6 });
    expect(r).toMatchObject({ sessions: 6, stoppedBy: 'bound', loggedOut: 6 });
    // The run's own session is untouched.
    expect((await c.get(`/xyz/${NS}/`, { relogin: false })).status).toBe(200);
  });

  test('sessions: a refused login ends the probe and says so', async () => {
    const c = await start([]);
    const r = await measureSessionCapacity(c, { user: 'root', password: 'not-the-password', namespace: NS, bound: 6 });
    expect(r).toMatchObject({ sessions: 0, stoppedBy: 'refused' });
    expect(r.detail).toMatch(/login 1 was refused \(401/);
  });
});

/**
 * A bare WebSocket server on 127.0.0.1: each new socket closes the one before it (1008), or, given
 * `rejectFilter`, every socket is closed as its filter arrives, with that reason (as bmcweb does {}).
 */
async function oneAtATime(rejectFilter?: string): Promise<{ client: BmcClient; close(): Promise<void> }> {
  const server = createServer((_req, res) => res.writeHead(404).end());
  const wss = new WebSocketServer({ server });
  let last: WebSocket | undefined;
  wss.on('connection', (ws) => {
    if (rejectFilter) ws.on('message', () => ws.close(1000, rejectFilter));
    else {
      last?.close(1008, 'one subscriber at a time');
      last = ws;
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const c = new BmcClient({ baseUrl: `http://127.0.0.1:${port}`, user: 'root', password: 'x', timeoutMs: 2_000 });
  return {
    client: c,
    close: async () => {
      await c.close();
      for (const ws of wss.clients) ws.terminate();
      wss.close();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
