/** The pieces the dialects are built from, and the options and faults that go with them. */
import { EventEmitter } from 'node:events';
import type { WebSocket } from 'ws';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { simulateCommand, type SimulateFlags } from '../../cli/simulate-command.js';
import { UsageError } from '../../client/usage-error.js';
import { Bus } from '../../simulator/bus.js';
import { createContext } from '../../simulator/context.js';
import { DIALECTS, parseDialect } from '../../simulator/dialects/dialect.js';
import { dialectDefaults, dialectFamily, dialectNamed } from '../../simulator/dialects/registry.js';
import { SpecServer } from '../../simulator/dialects/spec.js';
import { BMCWEB_WIRE, PHOSPHOR_WIRE, SPEC_WIRE } from '../../simulator/dialects/wire.js';
import { dumpJson, NLOHMANN_PRETTY, PY_COMPACT, PY_PRETTY } from '../../simulator/dialects/json-out.js';
import { BmcwebHub } from '../../simulator/dialects/bmcweb/events.js';
import { BmcwebServer } from '../../simulator/dialects/bmcweb/server.js';
import { PhosphorHub } from '../../simulator/dialects/phosphor/events.js';
import { PhosphorRestServer, serviceMs } from '../../simulator/dialects/phosphor/server.js';
import { floatText, pyRepr } from '../../simulator/dialects/py.js';
import { decodeUtf8Python, JsonFloat, parseTypedJson, type TypedJson } from '../../simulator/dialects/typed-json.js';
import { EventHub } from '../../simulator/events.js';
import { FaultSet } from '../../simulator/faults.js';
import { startSimulator } from '../../simulator/index.js';
import { SoftwareRegistry } from '../../simulator/software.js';
import { call, login, ROOT, sessionFor, subscribe } from './helpers.js';

afterEach(() => {
  vi.useRealTimers();
});

const pyError = (text: string): string => {
  try {
    parseTypedJson(text, 'python');
  } catch (e) {
    return (e as { text: string }).text;
  }
  return 'parsed';
};

describe('JSON as the servers parse it', () => {
  it('python mode gives json.loads error texts', () => {
    expect(pyError('')).toBe('Expecting value: line 1 column 1 (char 0)');
    expect(pyError('{"a" 1}')).toBe("Expecting ':' delimiter: line 1 column 6 (char 5)");
    expect(pyError('[1 2]')).toBe("Expecting ',' delimiter: line 1 column 4 (char 3)");
    expect(pyError('{"a": 1,}')).toBe('Expecting property name enclosed in double quotes: line 1 column 9 (char 8)');
    expect(pyError('{"a": 1}\n x')).toBe('Extra data: line 2 column 2 (char 10)');
    expect(pyError('"abc')).toBe('Unterminated string starting at: line 1 column 1 (char 0)');
    expect(pyError('\ufeff{}')).toBe('Unexpected UTF-8 BOM (decode using utf-8-sig): line 1 column 1 (char 0)');
  });

  it('keeps integers exact and floats apart; NaN only in python mode; deep nesting is RecursionError there', () => {
    expect(parseTypedJson('[18446744073709551617, 1.0, 2]', 'python')).toEqual([18446744073709551617n, new JsonFloat(1), 2n]);
    expect(parseTypedJson('18446744073709551616', 'strict')).toEqual(new JsonFloat(18446744073709551616));
    expect(parseTypedJson('NaN', 'python')).toEqual(new JsonFloat(NaN));
    expect(() => parseTypedJson('NaN', 'strict')).toThrow();
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    expect(() => parseTypedJson(deep, 'python')).toThrow(/maximum recursion depth exceeded while decoding a JSON array/);
    expect(Array.isArray(parseTypedJson(deep, 'strict'))).toBe(true);
  });

  it('UTF-8 errors read as CPython words them', () => {
    const text = (bytes: number[]) => {
      try {
        decodeUtf8Python(Buffer.from(bytes));
      } catch (e) {
        return (e as { text: string }).text;
      }
      return 'decoded';
    };
    expect(text([0x41, 0xff])).toBe("'utf-8' codec can't decode byte 0xff in position 1: invalid start byte");
    expect(text([0xe2, 0x28, 0xa1])).toBe("'utf-8' codec can't decode byte 0xe2 in position 0: invalid continuation byte");
    expect(text([0xe2, 0x82])).toBe("'utf-8' codec can't decode bytes in position 0-1: unexpected end of data");
  });

  it('repr() and float text follow Python (and nlohmann)', () => {
    const v = parseTypedJson(`{"a": [1, 1.5, true, null], "b": "it's"}`, 'python') as TypedJson;
    expect(pyRepr(v)).toBe(`{'a': [1, 1.5, True, None], 'b': "it's"}`);
    expect(floatText(127, 'python')).toBe('127.0');
    expect(floatText(1e16, 'python')).toBe('1e+16');
    expect(floatText(1e15, 'python')).toBe('1000000000000000.0');
    expect(floatText(1e15, 'nlohmann')).toBe('1e+15');
    expect(floatText(0.00001, 'python')).toBe('1e-05');
  });
});

describe('JSON as the servers write it', () => {
  const value = { b: [1, new JsonFloat(2)], a: { é: true }, c: {}, d: [] };
  it('pretty: two-space indent, sorted keys, non-ASCII escaped, doubles with a fraction', () => {
    const pretty = '{\n  "a": {\n    "\\u00e9": true\n  },\n  "b": [\n    1,\n    2.0\n  ],\n  "c": {},\n  "d": []\n}';
    expect(dumpJson(value, PY_PRETTY)).toBe(pretty);
    expect(dumpJson(value, NLOHMANN_PRETTY)).toBe(pretty);
  });
  it("compact (phosphor-rest's events): insertion order, ', ' and ': '", () => {
    expect(dumpJson({ event: 'X', path: '/a', n: [1, 2] }, PY_COMPACT)).toBe('{"event": "X", "path": "/a", "n": [1, 2]}');
  });
});

class FakeSocket extends EventEmitter {
  readonly OPEN = 1;
  readyState = 1;
  bufferedAmount = 0;
  sent: string[] = [];
  closed?: { code?: number; reason?: string };
  send(text: string): void {
    this.sent.push(text);
  }
  close(code?: number, reason?: string): void {
    this.closed = { code, reason };
  }
  ping(): void {}
  terminate(): void {}
}

const change = (value: number) => ({ event: 'PropertiesChanged', path: '/a/b', interface: 'x.y.Z', properties: { V: value } }) as const;

describe('event delivery', () => {
  it('with a latency, events wait for the next poll and then all leave in order', () => {
    vi.useFakeTimers();
    const hub = new PhosphorHub(new FaultSet([]), 60_000, { latencyMs: 500 });
    const ws = new FakeSocket();
    hub.attach(ws as unknown as WebSocket, 'sid');
    ws.emit('message', Buffer.from('{}'), false);
    hub.publish(change(1));
    hub.publish(change(2));
    vi.advanceTimersByTime(499);
    expect(ws.sent).toEqual([]);
    hub.publish(change(3));
    vi.advanceTimersByTime(1);
    expect(ws.sent.map((t) => JSON.parse(t).properties.V)).toEqual([1, 2, 3]);
    hub.close();
  });

  it('phosphor-rest: a path listed twice delivers twice; only the first message is read', () => {
    const hub = new PhosphorHub(new FaultSet([]), 60_000);
    const ws = new FakeSocket();
    hub.attach(ws as unknown as WebSocket, 'sid');
    ws.emit('message', Buffer.from('{"paths": ["/a/b", "/a/b"]}'), false);
    ws.emit('message', Buffer.from('not json at all'), false);
    hub.publish(change(1));
    expect(ws.sent).toHaveLength(2);
    expect(ws.closed).toBeUndefined();
    hub.close();
  });

  it('bmcweb: every message adds matches; overlapping namespaces deliver more than once', () => {
    const hub = new BmcwebHub(new FaultSet([]), 60_000);
    const ws = new FakeSocket();
    hub.attach(ws as unknown as WebSocket, 'sid');
    ws.emit('message', Buffer.from('{"paths": ["/a"]}'), false);
    ws.emit('message', Buffer.from('{"paths": ["/a/b"]}'), false);
    hub.publish(change(1));
    expect(ws.sent).toHaveLength(2);
    ws.emit('message', Buffer.from('{"paths": ["/a/"]}'), false);
    expect(ws.closed).toEqual({ code: 1000, reason: 'quit' });
    hub.close();
  });
});

describe('options', () => {
  it('defaults: phosphor-rest polls events every 2 s, gives up on an upload after 10 s and takes 10 ms a plain request; bmcweb gives up after 15 s; spec never waits', () => {
    expect(dialectDefaults('phosphor-rest')).toMatchObject({ eventLatencyMs: 2_000, uploadFailDelayMs: 10_000, requestMs: 10 });
    expect(dialectDefaults('bmcweb')).toMatchObject({ eventLatencyMs: 0, uploadFailDelayMs: 15_000, requestMs: 0 });
    expect(dialectDefaults('spec')).toMatchObject({ eventLatencyMs: 0, uploadFailDelayMs: 0, requestMs: 0 });
  });

  it("phosphor-rest's time per request: 10 ms, 20 more per object read, 40 more for a Set or call, 100 more for an upload", async () => {
    expect(serviceMs(10, undefined)).toBe(10);
    expect(serviceMs(10, { objects: 1 })).toBe(30);
    expect(serviceMs(10, { objects: 38 })).toBe(770);
    expect(serviceMs(10, { call: true })).toBe(50);
    expect(serviceMs(10, { upload: true })).toBe(110);
    expect(serviceMs(0, { objects: 50 })).toBe(0);
    await expect(startSimulator({ dialect: 'phosphor-rest', requestMs: -1 })).rejects.toThrow(/requestMs must be a whole number of ms/);
  });

  it('a failed registration answers only after the fail delay', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    const faults = new FaultSet([]);
    const bus = new Bus(new EventHub(faults, 60_000), faults, { namespace: 'mgmt_project', entries: 0, objects: 0, faults });
    const registry = new SoftwareRegistry(bus, { failDelayMs: 10_000 });
    let outcome: unknown;
    void registry.register(Buffer.from('not a tarball'), undefined).catch((e) => (outcome = e));
    while (vi.getTimerCount() === 0) await new Promise((r) => setImmediate(r));
    await vi.advanceTimersByTimeAsync(9_999);
    expect(outcome).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(outcome).toMatchObject({ status: 400, description: 'Version already exists or failed to be extracted' });
  });

  it('startSimulator refuses an unknown dialect; simulate says so in one sentence', async () => {
    await expect(startSimulator({ dialect: 'redfish' as never })).rejects.toThrow(/unknown dialect redfish/);
    const flags = { dialect: 'redfish', fault: [], listFaults: false } as unknown as SimulateFlags;
    const err = await simulateCommand(flags).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toBe(
      'Unknown dialect redfish; the dialects are spec, phosphor-rest, bmcweb and bmcweb@2023 (bmcweb is bmcweb@current).',
    );
  });

  it('a dialect is named with its version, or without it for the current one', () => {
    expect(parseDialect('bmcweb@2023')).toBe('bmcweb@2023');
    expect(parseDialect('bmcweb@current')).toBe('bmcweb');
    expect(parseDialect('bmcweb')).toBe('bmcweb');
    expect(parseDialect('bmcweb@2019')).toBeUndefined();
    expect(dialectFamily('bmcweb@2023')).toBe('bmcweb');
    expect(dialectDefaults('bmcweb@2023')).toEqual(dialectDefaults('bmcweb'));
  });

  it('every dialect name has one dialect: its hub, its wire style and its server, built on one context', () => {
    const hubs = { spec: EventHub, 'phosphor-rest': PhosphorHub, bmcweb: BmcwebHub, 'bmcweb@2023': BmcwebHub };
    const wires = { spec: SPEC_WIRE, 'phosphor-rest': PHOSPHOR_WIRE, bmcweb: BMCWEB_WIRE, 'bmcweb@2023': BMCWEB_WIRE };
    const servers = { spec: SpecServer, 'phosphor-rest': PhosphorRestServer, bmcweb: BmcwebServer, 'bmcweb@2023': BmcwebServer };
    for (const name of DIALECTS) {
      const dialect = dialectNamed(name);
      const faults = new FaultSet([]);
      const hub = dialect.hub(faults, { pingIntervalMs: 60_000, latencyMs: 0 });
      expect(hub.constructor, name).toBe(hubs[name]);
      expect(dialect.wire, name).toBe(wires[name]);
      const settings = { faults, hub, wire: dialect.wire, namespace: 'mgmt_project', user: 'root', password: 'pw', plain: false };
      const ctx = createContext({
        ...settings,
        requestMs: 0,
        log: () => {},
        entries: 0,
        objects: 0,
        transitionDelayMs: 50,
        uploadFailDelayMs: 0,
      });
      const server = dialect.server(ctx);
      expect(server, name).toBeInstanceOf(servers[name]);
      server.close();
      hub.close();
    }
    expect(dialectNamed('phosphor-rest').typicalRequestMs(10)).toBe(serviceMs(10, { objects: 1 }));
    expect(dialectNamed('bmcweb').typicalRequestMs(10)).toBe(10);
  });
});

describe('faults apply on top of a dialect', () => {
  it('phosphor-rest with status-ok-on-error and events-duplicated', async () => {
    const sim = await startSimulator({ dialect: 'phosphor-rest', faults: ['status-ok-on-error', 'events-duplicated'], eventLatencyMs: 10 });
    try {
      const s = sessionFor(sim, await login(sim.url));
      const r = await s.get(`${ROOT}/nothere`);
      expect(r.status).toBe(404);
      expect(r.body.status).toBe('ok');
      const sub = await subscribe(sim.url, s.cookie, {});
      await s.put(`${ROOT}/inventory/system/attr/AssetTag`, 'DUP');
      expect((await sub.waitFor(2)).map((m) => m.properties.AssetTag)).toEqual(['DUP', 'DUP']);
      sub.close();
    } finally {
      await sim.close();
    }
  });

  it('bmcweb with login-any-password', async () => {
    const sim = await startSimulator({ dialect: 'bmcweb', faults: ['login-any-password'] });
    try {
      expect((await call(sim.url, 'POST', '/login', { json: { username: 'root', password: 'wrong' } })).status).toBe(200);
    } finally {
      await sim.close();
    }
  });
});

describe('spec is unchanged by the dialects', () => {
  it('booleans 0/1 in objects and attributes, 403 for a creating POST and a non-deletable DELETE, 400 for a wrong type', async () => {
    const sim = await startSimulator({});
    try {
      const s = sessionFor(sim, await login(sim.url));
      const system = `${ROOT}/inventory/system`;
      expect((await s.get(system)).body.data.Present).toBe(1);
      expect((await s.get(`${system}/attr/Present`)).body.data).toBe(1);
      expect((await s.post(system, {})).status).toBe(403);
      expect((await s.del(system)).status).toBe(403);
      expect((await s.put(`${system}/attr/AssetTag`, 5)).status).toBe(400);
      expect((await s.get(`${system}/attr/assettag`)).status).toBe(404);
    } finally {
      await sim.close();
    }
  });
});
