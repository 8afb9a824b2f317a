import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { simulatorTargetProfile } from '../../simulator/index.js';
import { I, ROOT, startWithSession, subscribe, type Session } from './helpers.js';

let s: Session;
const SYSTEM = `${ROOT}/inventory/system`;
const CAP = `${ROOT}/control/power_cap`;
const HOST = `${ROOT}/state/host0`;

beforeAll(async () => {
  s = await startWithSession({ transitionDelayMs: 30 });
});
afterAll(() => s.sim.close());
beforeEach(async () => {
  expect((await s.post(`${ROOT}/software/action/Reset`, [])).status).toBe(200);
});

describe('PUT {path}/attr/{name}', () => {
  it('updates a writable attribute of each type and reads back', async () => {
    const cases: [string, string, unknown, unknown][] = [
      [SYSTEM, 'AssetTag', 'TAG-42', 'TAG-42'],
      [`${ROOT}/led/groups/enclosure_identify`, 'Asserted', true, 1],
      [`${ROOT}/led/groups/enclosure_identify`, 'Asserted', 0, 0],
      [`${ROOT}/led/physical/identify`, 'State', `${I}.Led.Physical.Action.Blink`, `${I}.Led.Physical.Action.Blink`],
      [CAP, 'PowerCap', 450, 450],
      [CAP, 'PowerCapEnable', 1, 1],
    ];
    for (const [path, name, value, shown] of cases) {
      const r = await s.put(`${path}/attr/${name}`, value);
      expect(r.status, name).toBe(200);
      expect(r.body).toEqual({ data: null, message: '200 OK', status: 'ok' });
      expect((await s.get(`${path}/attr/${name}`)).body.data).toEqual(shown);
      expect((await s.get(path)).body.data[name]).toEqual(shown);
    }
  });

  it('refuses wrong types with 400 and keeps the value', async () => {
    const wrong: [string, string, unknown][] = [
      [SYSTEM, 'AssetTag', 5],
      [SYSTEM, 'AssetTag', null],
      [CAP, 'PowerCap', 'high'],
      [CAP, 'PowerCap', -1],
      [CAP, 'PowerCap', 1.5],
      [CAP, 'PowerCap', 4294967296],
      [CAP, 'PowerCapEnable', 2],
      [CAP, 'PowerCapEnable', 'true'],
      [`${ROOT}/led/physical/identify`, 'State', 'Blink'],
      [HOST, 'RequestedHostTransition', `${I}.State.Host.Transition.Sideways`],
    ];
    for (const [path, name, value] of wrong) {
      const before = (await s.get(`${path}/attr/${name}`)).body.data;
      const r = await s.put(`${path}/attr/${name}`, value);
      expect(r.status, `${name}=${JSON.stringify(value)}`).toBe(400);
      expect(r.body.status).toBe('error');
      expect(typeof r.body.data.description).toBe('string');
      expect((await s.get(`${path}/attr/${name}`)).body.data).toEqual(before);
    }
  });

  it('refuses read-only attributes with 403 and unknown ones with 404', async () => {
    expect((await s.put(`${SYSTEM}/attr/Model`, 'X')).status).toBe(403);
    expect((await s.put(`${HOST}/attr/CurrentHostState`, `${I}.State.Host.HostState.Running`)).status).toBe(403);
    expect((await s.put(`${SYSTEM}/attr/NoSuch`, 'X')).status).toBe(404);
    expect((await s.put(`${ROOT}/nope/attr/X`, 'X')).status).toBe(404);
  });

  it('refuses bodies that are not {"data": value}', async () => {
    expect((await s.call('PUT', `${SYSTEM}/attr/AssetTag`, { json: 'bare' })).status).toBe(400);
    expect((await s.call('PUT', `${SYSTEM}/attr/AssetTag`, { json: { value: 'x' } })).status).toBe(400);
    expect((await s.call('PUT', `${SYSTEM}/attr/AssetTag`, { raw: '{"data":', contentType: 'application/json' })).status).toBe(400);
    expect((await s.call('PUT', `${SYSTEM}/attr/AssetTag`, { raw: '{"data":"x"}', contentType: 'text/plain' })).status).toBe(415);
    expect((await s.call('PUT', `${SYSTEM}/attr/AssetTag`, { raw: '{"data":"x"}' })).status).toBe(415);
    expect((await s.call('PUT', `${SYSTEM}/attr/AssetTag`)).status).toBe(400);
  });

  it('accepts every attribute of the target profile', async () => {
    for (const w of simulatorTargetProfile().writable) {
      const current = (await s.get(`${w.path}/attr/${w.name}`)).body.data;
      const next = w.values ? w.values.find((v) => v !== current) : typeof current === 'string' ? `${current}-x` : current === 0 ? 1 : 0;
      expect((await s.put(`${w.path}/attr/${w.name}`, next)).status, w.name).toBe(200);
      expect((await s.get(`${w.path}/attr/${w.name}`)).body.data).toEqual(next);
    }
  });

  it('50 concurrent PUTs all succeed and the last value read is one of them', async () => {
    const values = Array.from({ length: 50 }, (_, i) => `TAG-${i}`);
    const replies = await Promise.all(values.map((v) => s.put(`${SYSTEM}/attr/AssetTag`, v)));
    expect(replies.every((r) => r.status === 200)).toBe(true);
    expect(values).toContain((await s.get(`${SYSTEM}/attr/AssetTag`)).body.data);
  });
});

describe('PUT {path} (complete object)', () => {
  it('a GET body without message and status is accepted and applied', async () => {
    const got = (await s.get(SYSTEM)).body;
    delete got.message;
    delete got.status;
    got.data.AssetTag = 'FROM-GET-BODY';
    const r = await s.call('PUT', SYSTEM, { json: got });
    expect(r.status).toBe(200);
    expect((await s.get(`${SYSTEM}/attr/AssetTag`)).body.data).toBe('FROM-GET-BODY');
  });

  it('a GET body with uint64 beyond 2^53 round-trips (raw text)', async () => {
    const path = `${ROOT}/sensors/counters/bus_errors`;
    const r0 = await s.get(path);
    const raw = r0.text.replace(/,"message".*$/, '}');
    expect(raw).toContain('18446744073709551615');
    const r = await s.call('PUT', path, { raw, contentType: 'application/json' });
    expect(r.status).toBe(200);
    // A changed read-only uint64 is refused.
    const changed = raw.replace('18446744073709551615', '18446744073709551614');
    expect((await s.call('PUT', path, { raw: changed, contentType: 'application/json' })).status).toBe(403);
  });

  it('objects with live clocks accept their own GET body', async () => {
    const got = (await s.get(`${ROOT}/time/bmc`)).body;
    expect((await s.put(`${ROOT}/time/bmc`, got.data)).status).toBe(200);
  });

  it('attribute-less objects and intermediate nodes accept {}', async () => {
    expect((await s.put(`${ROOT}/dump`, {})).status).toBe(200);
    expect((await s.put(`${ROOT}/sensors`, {})).status).toBe(200);
  });

  it('refuses a partial or extended map with 400 and changes nothing', async () => {
    const full = (await s.get(SYSTEM)).body.data;
    const { Model: _m, ...partial } = full;
    expect((await s.put(SYSTEM, { ...partial, AssetTag: 'PARTIAL' })).status).toBe(400);
    expect((await s.put(SYSTEM, { ...full, AssetTag: 'EXTRA', Extra: 1 })).status).toBe(400);
    expect((await s.put(SYSTEM, { AssetTag: 'ONLY' })).status).toBe(400);
    expect((await s.get(`${SYSTEM}/attr/AssetTag`)).body.data).toBe(full.AssetTag);
  });

  it('refuses a changed read-only value with 403 and applies none of the writes', async () => {
    const full = (await s.get(SYSTEM)).body.data;
    const r = await s.put(SYSTEM, { ...full, AssetTag: 'ATOMIC', Model: 'Other' });
    expect(r.status).toBe(403);
    expect((await s.get(`${SYSTEM}/attr/AssetTag`)).body.data).toBe(full.AssetTag);
  });

  it('refuses a wrongly typed value with 400 and applies nothing', async () => {
    const full = (await s.get(CAP)).body.data;
    const r = await s.put(CAP, { ...full, PowerCap: 'lots', PowerCapEnable: 1 });
    expect(r.status).toBe(400);
    expect((await s.get(CAP)).body.data).toEqual(full);
  });

  it('updates several writable attributes with one PropertiesChanged each', async () => {
    const sub = await subscribe(s.sim.url, s.cookie, { paths: [CAP] });
    const full = (await s.get(CAP)).body.data;
    expect((await s.put(CAP, { ...full, PowerCap: 777, PowerCapEnable: 1 })).status).toBe(200);
    const msgs = await sub.waitFor(2);
    expect(msgs).toEqual([
      { event: 'PropertiesChanged', path: CAP, interface: `${I}.Control.Power.Cap`, properties: { PowerCap: 777 } },
      { event: 'PropertiesChanged', path: CAP, interface: `${I}.Control.Power.Cap`, properties: { PowerCapEnable: 1 } },
    ]);
    sub.close();
  });

  it('unknown objects answer 404 and PATCH 405', async () => {
    expect((await s.put(`${ROOT}/nope`, {})).status).toBe(404);
    const p = await s.call('PATCH', SYSTEM, { json: { data: { AssetTag: 'P' } } });
    expect(p.status).toBe(405);
    expect(p.headers.allow).toBeDefined();
  });
});

describe('host state', () => {
  it('RequestedHostTransition is writable and moves CurrentHostState after the delay, requested first', async () => {
    const sub = await subscribe(s.sim.url, s.cookie, { paths: [HOST] });
    expect((await s.put(`${HOST}/attr/RequestedHostTransition`, `${I}.State.Host.Transition.On`)).status).toBe(200);
    expect((await s.get(`${HOST}/attr/RequestedHostTransition`)).body.data).toBe(`${I}.State.Host.Transition.On`);
    const msgs = await sub.waitFor(2);
    expect(msgs.map((m) => Object.keys(m.properties)[0])).toEqual(['RequestedHostTransition', 'CurrentHostState']);
    expect(msgs[0]).toEqual({
      event: 'PropertiesChanged',
      path: HOST,
      interface: `${I}.State.Host`,
      properties: { RequestedHostTransition: `${I}.State.Host.Transition.On` },
    });
    expect(msgs[1].properties.CurrentHostState).toBe(`${I}.State.Host.HostState.Running`);
    expect((await s.get(`${HOST}/attr/CurrentHostState`)).body.data).toBe(`${I}.State.Host.HostState.Running`);

    expect((await s.put(`${HOST}/attr/RequestedHostTransition`, `${I}.State.Host.Transition.Off`)).status).toBe(200);
    await sub.waitFor(4);
    expect(sub.messages[3].properties.CurrentHostState).toBe(`${I}.State.Host.HostState.Off`);
    sub.close();
  });
});
