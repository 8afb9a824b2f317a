import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { I, NS, rawHttps, ROOT, startWithSession, type Session } from './helpers.js';

let s: Session;

beforeAll(async () => {
  s = await startWithSession();
});
afterAll(() => s.sim.close());

const TOP = ['dump', 'software', 'control', 'network', 'logging', 'sensors', 'inventory', 'user', 'time', 'led', 'state'];

describe('objects', () => {
  it('has the 11 top-level children', async () => {
    const r = await s.get(`${ROOT}/`);
    expect(r.status).toBe(200);
    expect(r.body.data.sort()).toEqual(TOP.map((t) => `${ROOT}/${t}`).sort());
  });

  it('inventory/system has the spec attributes with their types', async () => {
    const r = await s.get(`${ROOT}/inventory/system`);
    expect(r.status).toBe(200);
    const d = r.body.data;
    for (const k of ['AssetTag', 'BuildDate', 'Manufacturer', 'Model', 'PartNumber', 'PrettyName', 'SerialNumber']) {
      expect(typeof d[k], k).toBe('string');
    }
    for (const k of ['Cached', 'FieldReplaceable', 'Present']) expect([0, 1]).toContain(d[k]);
  });

  it('time objects', async () => {
    const bmc = (await s.get(`${ROOT}/time/bmc`)).body.data;
    const host = (await s.get(`${ROOT}/time/host`)).body.data;
    expect(Number.isInteger(bmc.Elapsed)).toBe(true);
    expect(Number.isInteger(host.Elapsed)).toBe(true);
    expect((await s.get(`${ROOT}/time/owner`)).body.data).toEqual({ TimeOwner: `${I}.Time.Owner.Owners.BMC` });
    expect((await s.get(`${ROOT}/time/sync_method`)).body.data).toEqual({
      TimeSyncMethod: `${I}.Time.Synchronization.Method.NTP`,
    });
  });

  it('state/host0', async () => {
    const d = (await s.get(`${ROOT}/state/host0`)).body.data;
    expect(Number.isInteger(d.AttemptsLeft)).toBe(true);
    expect(d.BootProgress).toBe(`${I}.State.Boot.Progress.ProgressStages.Unspecified`);
    expect(d.CurrentHostState).toBe(`${I}.State.Host.HostState.Off`);
    expect(d.OperatingSystemState).toBe(`${I}.State.OperatingSystem.Status.OSStatus.Inactive`);
    expect(d.RequestedHostTransition).toBe(`${I}.State.Host.Transition.Off`);
  });

  it('objects shown by name exist', async () => {
    for (const p of [
      'network/config',
      'network/config/dhcp',
      'network/eth0',
      'network/host0/intf',
      'network/host0/intf/addr',
      'software',
    ]) {
      expect((await s.get(`${ROOT}/${p}`)).status, p).toBe(200);
    }
    for (const v of ['ipv4', 'ipv6']) {
      const ids = (await s.get(`${ROOT}/network/eth0/${v}/`)).body.data;
      expect(ids.length).toBeGreaterThan(0);
      expect((await s.get(ids[0])).body.data.Address).toBeTypeOf('string');
    }
  });

  it('logging entries have integer ids', async () => {
    const entries: string[] = (await s.get(`${ROOT}/logging/entry/`)).body.data;
    expect(entries).toHaveLength(5);
    for (const e of entries) expect(e).toMatch(new RegExp(`^${ROOT}/logging/entry/\\d+$`));
  });

  it('GET attr answers the bare value equal to the object map', async () => {
    const obj = (await s.get(`${ROOT}/inventory/system`)).body.data;
    for (const [name, value] of Object.entries(obj)) {
      const r = await s.get(`${ROOT}/inventory/system/attr/${name}`);
      expect(r.status).toBe(200);
      expect(r.body.data).toEqual(value);
    }
  });

  it('attribute names are case-sensitive', async () => {
    expect((await s.get(`${ROOT}/inventory/system/attr/assettag`)).status).toBe(404);
    expect((await s.get(`${ROOT}/inventory/system/attr/ASSETTAG`)).status).toBe(404);
    expect((await s.put(`${ROOT}/inventory/system/attr/assettag`, 'x')).status).toBe(404);
  });

  it('uint64 values beyond 2^53 are serialised losslessly', async () => {
    const r = await s.get(`${ROOT}/sensors/counters/bus_errors`);
    expect(r.text).toContain('"Count":18446744073709551615');
    expect(r.text).toContain('"Offset":-9007199254740993');
    const attr = await s.get(`${ROOT}/sensors/power/total_power/attr/TotalEnergy`);
    expect(attr.text).toContain('"data":9007199254740993');
    const en = await s.get(`${ROOT}/sensors/enumerate`);
    expect(en.text).toContain('"Count":18446744073709551615');
  });

  it('objects without attributes and intermediate nodes read as {}', async () => {
    expect((await s.get(`${ROOT}/dump`)).body.data).toEqual({});
    expect((await s.get(`${ROOT}/sensors`)).body.data).toEqual({});
    expect((await s.get(`${ROOT}/sensors/temperature`)).body.data).toEqual({});
    expect((await s.get(ROOT)).body.data).toEqual({});
  });

  it('booleans are shown as 0/1, doubles and dicts keep their JSON form', async () => {
    const amb = (await s.get(`${ROOT}/sensors/temperature/ambient`)).body.data;
    expect(amb.Value).toBe(23.5);
    expect(amb.WarningAlarmHigh).toBe(0);
    const chassis = (await s.get(`${ROOT}/inventory/system/chassis`)).body.data;
    expect(chassis.Properties).toEqual({ Slot: 1, Label: 'front', Slots: [1, 2] });
  });

  it('the namespace is configurable', async () => {
    const other = await startWithSession({ namespace: 'acme' });
    try {
      expect((await other.get('/xyz/')).body.data).toEqual(['/xyz/acme']);
      expect((await other.get('/xyz/acme/time/owner')).body.data.TimeOwner).toBe('xyz.acme.Time.Owner.Owners.BMC');
      expect((await other.get(`${ROOT}/`)).status).toBe(404);
    } finally {
      await other.sim.close();
    }
  });
});

describe('listings', () => {
  it('/ lists the top and /xyz/ lists the namespace', async () => {
    expect((await s.get('/')).body.data).toEqual(['/xyz']);
    expect((await s.get('/xyz/')).body.data).toEqual([ROOT]);
  });

  it('{path}/ lists direct children only, including intermediate nodes', async () => {
    const r = await s.get(`${ROOT}/sensors/`);
    expect(r.body.data).toEqual([
      `${ROOT}/sensors/counters`,
      `${ROOT}/sensors/fan_tach`,
      `${ROOT}/sensors/power`,
      `${ROOT}/sensors/temperature`,
    ]);
    expect((await s.get(`${ROOT}/dump/`)).body.data).toEqual([]);
  });

  it('{path}/list lists every descendant node recursively', async () => {
    const r = await s.get(`${ROOT}/network/list`);
    expect(r.status).toBe(200);
    const list: string[] = r.body.data;
    expect(list).toContain(`${ROOT}/network/config`);
    expect(list).toContain(`${ROOT}/network/config/dhcp`);
    expect(list).toContain(`${ROOT}/network/host0`);
    expect(list).toContain(`${ROOT}/network/host0/intf/addr`);
    expect(list).not.toContain(`${ROOT}/network`);
    expect(list.every((p) => p.startsWith(`${ROOT}/network/`))).toBe(true);
    expect([...list].sort()).toEqual(list);
  });

  it('repeated listing from / discovers every object of /list', async () => {
    const seen: string[] = [];
    const queue = ['/'];
    while (queue.length > 0) {
      const p = queue.shift()!;
      const children: string[] = (await s.get(p === '/' ? '/' : `${p}/`)).body.data;
      for (const c of children) {
        seen.push(c);
        queue.push(c);
      }
    }
    const all: string[] = (await s.get('/list')).body.data;
    expect(seen.sort()).toEqual(all);
  });

  it('{path}/enumerate maps each descendant object to its GET map', async () => {
    const r = await s.get(`${ROOT}/inventory/enumerate`);
    const en: Record<string, unknown> = r.body.data;
    expect(Object.keys(en)).toContain(`${ROOT}/inventory/system`);
    expect(Object.keys(en)).not.toContain(`${ROOT}/inventory/system/chassis/motherboard`); // intermediate
    for (const [p, attrs] of Object.entries(en)) {
      expect((await s.get(p)).body.data).toEqual(attrs);
    }
  });

  it('unknown paths answer 404 for every listing form', async () => {
    for (const p of [
      `${ROOT}/nope/`,
      `${ROOT}/nope/list`,
      `${ROOT}/nope/enumerate`,
      `${ROOT}/nope`,
      `${ROOT}/inventory/system/attr/Nope`,
      `${ROOT}/nope/attr/X`,
    ]) {
      const r = await s.get(p);
      expect(r.status, p).toBe(404);
      expect(r.body.status).toBe('error');
    }
  });
});

describe('odd paths', () => {
  const odd = [
    `/xyz//${NS}/inventory/system`,
    `${ROOT}//inventory/system`,
    `${ROOT}/inventory/system/`.replace('system/', 'system//'),
    `${ROOT}/inventory/%73ystem`,
    `${ROOT}/inventory/syst%C3%A9m`,
    `${ROOT}/inventory/syst%ZZm`,
    `${ROOT}/inventory/system%00`,
    `${ROOT}/${'a'.repeat(8000)}`,
    '//',
    '/xyz/ünïcödé',
    `${ROOT}/inventory/system/attr/Asset%54ag`,
    `${ROOT}/inventory/system/attr/`,
    `${ROOT}/inventory/system/attr`,
    '/upload',
    '/upload/image/x/y',
  ];
  it.each(odd)('%s answers 404 (no normalisation, no 5xx)', async (p) => {
    const r = await s.get(p);
    expect(r.status).toBe(r.status === 405 ? 405 : 404);
    expect(r.status).toBeLessThan(500);
    expect(r.body.status).toBe('error');
  });

  it.each([`${ROOT}/inventory/../inventory/system`, `${ROOT}/./inventory/system`, `${ROOT}/inventory/system/.`])(
    'dot segments are not resolved: %s answers 404',
    async (p) => {
      const r = await rawHttps(s.sim.port, `GET ${p} HTTP/1.1\r\nHost: x\r\nCookie: ${s.cookie}\r\nConnection: close\r\n\r\n`);
      expect(r.status).toBe(404);
      expect(r.body.status).toBe('error');
    },
  );

  it('raw non-ASCII bytes in the path answer 404', async () => {
    const req = Buffer.concat([
      Buffer.from(`GET ${ROOT}/inventory/syst`),
      Buffer.from('é', 'utf8'),
      Buffer.from(`m HTTP/1.1\r\nHost: x\r\nCookie: ${s.cookie}\r\nConnection: close\r\n\r\n`),
    ]);
    const r = await rawHttps(s.sim.port, req);
    expect([400, 404]).toContain(r.status);
    expect(r.body.status).toBe('error');
  });

  it('a request target over the header limit gets a 4xx envelope', async () => {
    const r = await s.get(`${ROOT}/${'b'.repeat(20000)}`);
    expect(r.status).toBe(431);
    expect(r.body.message).toBe('431 Request Header Fields Too Large');
  });

  it('a query string is not part of the path', async () => {
    expect((await s.get(`${ROOT}/inventory/system?x=1`)).status).toBe(200);
  });

  it('HEAD behaves like GET without a body', async () => {
    const r = await s.call('HEAD', `${ROOT}/inventory/system`);
    expect(r.status).toBe(200);
    expect(r.text).toBe('');
  });
});
