/**
 * Both field dialects deliver a new version's interfaces as a BMC's services signal them: the image
 * manager's InterfacesAdded first (Version, FilePath, Delete), the updater's (Activation) a little later.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../simulator/index.js';
import { buildImageTarball } from '../../simulator/image-archive.js';
import { byService, UPDATER_DELAY_MS } from '../../simulator/dialects/services.js';
import { call, I, login, ROOT, subscribe } from '../simulator/helpers.js';

const octet = 'application/octet-stream';
const ACTIVATION = `${I}.Software.Activation`;
const VERSION = `${I}.Software.Version`;

describe('byService', () => {
  it('splits an InterfacesAdded holding the Activation interface among others; leaves anything else whole', () => {
    const added = {
      event: 'InterfacesAdded' as const,
      path: `${ROOT}/software/1a`,
      interfaces: { [VERSION]: { Version: 'v' }, [ACTIVATION]: { Activation: 'Ready' }, [`${I}.Object.Delete`]: {} },
    };
    const parts = byService(added);
    expect(parts.map((p) => [Object.keys((p.event as typeof added).interfaces), p.delayMs])).toEqual([
      [[VERSION, `${I}.Object.Delete`], 0],
      [[ACTIVATION], UPDATER_DELAY_MS],
    ]);
    const alone = { ...added, interfaces: { [ACTIVATION]: { Activation: 'Ready' } } };
    expect(byService(alone)).toEqual([{ event: alone, delayMs: 0 }]);
    const changed = { event: 'PropertiesChanged' as const, path: '/a', interface: 'x.Y', properties: { A: 1 } };
    expect(byService(changed)).toEqual([{ event: changed, delayMs: 0 }]);
  });
});

describe('an upload through each dialect', () => {
  let phosphor: RunningSimulator;
  let bmcweb: RunningSimulator;
  beforeAll(async () => {
    phosphor = await startSimulator({ dialect: 'phosphor-rest', eventLatencyMs: 20, uploadFailDelayMs: 20, requestMs: 0 });
    bmcweb = await startSimulator({ dialect: 'bmcweb', uploadFailDelayMs: 20 });
  });
  afterAll(async () => {
    await phosphor.close();
    await bmcweb.close();
  });

  it('phosphor-rest: two InterfacesAdded of the new path, each with the standard interfaces', async () => {
    const cookie = await login(phosphor.url);
    const sub = await subscribe(phosphor.url, cookie, {});
    const up = await call(phosphor.url, 'POST', '/upload/image', {
      cookie,
      raw: buildImageTarball({ version: 'services-phosphor' }),
      contentType: octet,
    });
    const [first, second] = await sub.waitFor(2);
    sub.close();
    const path = `${ROOT}/software/${up.body.data}`;
    expect([first.path, second.path]).toEqual([path, path]);
    expect(Object.keys(first.interfaces)).toContain(VERSION);
    expect(Object.keys(first.interfaces)).not.toContain(ACTIVATION);
    expect(Object.keys(second.interfaces)).toContain(ACTIVATION);
    expect(Object.keys(second.interfaces)).not.toContain(VERSION);
    expect(second.interfaces['org.freedesktop.DBus.Peer']).toEqual({});
    // GET shows the object whole: every property one of the two signals carried.
    const got = await call(phosphor.url, 'GET', path, { cookie });
    const carried = [first, second].flatMap((m) => Object.values(m.interfaces).flatMap((p) => Object.keys(p as object)));
    expect(Object.keys(got.body.data).sort()).toEqual([...new Set(carried)].sort());
  });

  it('bmcweb: two InterfacesAdded of the ObjectManager, each listing only the interfaces the filter names', async () => {
    const login = await call(bmcweb.url, 'POST', '/login', { json: { username: 'root', password: '0penBmc' } });
    const h = { headers: { 'x-auth-token': login.body.token as string } };
    const sub = await subscribe(bmcweb.url, '', { paths: [`${ROOT}/software`], interfaces: [VERSION, ACTIVATION] }, h);
    await call(bmcweb.url, 'POST', '/upload/image', { ...h, raw: buildImageTarball({ version: 'services-bmcweb' }), contentType: octet });
    const [first, second] = await sub.waitFor(2);
    sub.close();
    expect([first.path, second.path]).toEqual([`${ROOT}/software`, `${ROOT}/software`]);
    expect(Object.keys(first.interfaces)).toEqual([VERSION]);
    expect(Object.keys(second.interfaces)).toEqual([ACTIVATION]);
  });
});
