import { Agent, request } from 'undici';
import { assert, describe, expect, it } from 'vitest';
import { failableRequirements, isRequirementId } from '../../catalogue/requirements.js';
import { FAULTS, startSimulator } from '../../simulator/index.js';
import { listFaultsText } from '../../simulator/main.js';
import { buildImageTarball } from '../../simulator/image-archive.js';
import { call, I, openSocket, ROOT, sleep, subscribe } from './helpers.js';
import { altered, CAP, eventsDuring, LED, octet, session, SYSTEM, tftp, upload, useTftpServer, type Probe } from './fault-probe-kit.js';
import { AUTH_PROBES } from './fault-probes-auth.js';
import { LISTING_PROBES } from './fault-probes-listings.js';
import { EFFECT_PROBES } from './fault-probes-effects.js';
import { EVENT_PROBES } from './fault-probes-events.js';
import { DOMAIN_PROBES } from './fault-probes-domains.js';
import { FIDELITY_PROBES } from './fault-probes-fidelity.js';

useTftpServer();

/**
 * For each fault: a probe that answers true when the simulator shows the faulty behaviour. Every
 * probe must answer true with its fault and false on a clean simulator.
 */
const coreProbes: Record<string, Probe> = {
  'missing-message-member': async (sim) => !('message' in (await (await session(sim)).get('/')).body),
  'message-wrong-code': async (sim) => (await (await session(sim)).get(`${ROOT}/nope`)).body.message === '200 OK',
  'status-ok-on-error': async (sim) => (await (await session(sim)).get(`${ROOT}/nope`)).body.status === 'ok',
  'text-plain-content-type': async (sim) =>
    !String((await (await session(sim)).get('/')).headers['content-type']).startsWith('application/json'),
  'login-no-cookie': async (sim) => {
    const r = await call(sim.url, 'POST', '/login', { json: { data: ['root', '0penBmc'] } });
    return r.status === 200 && r.headers['set-cookie'] === undefined;
  },
  'logout-keeps-session': async (sim) => {
    const s = await session(sim);
    await s.post('/logout', []);
    return (await s.get('/')).status === 200;
  },
  'auth-bypass-enumerate': async (sim) => (await call(sim.url, 'GET', `${ROOT}/enumerate`)).status === 200,
  'auth-bypass-upload': async (sim) =>
    (await call(sim.url, 'POST', '/upload/image', { raw: buildImageTarball({ version: 'bypass' }), contentType: octet })).status === 200,
  'subscribe-without-login': async (sim) => {
    const ws = openSocket(sim.url);
    return new Promise<boolean>((resolve) => {
      ws.on('open', () => {
        ws.terminate();
        resolve(true);
      });
      ws.on('unexpected-response', () => resolve(false));
      ws.on('error', () => resolve(false));
    });
  },
  'login-any-password': async (sim) => (await call(sim.url, 'POST', '/login', { json: { data: ['root', 'wrong'] } })).status === 200,
  'refusal-leaks-data': async (sim) => (await call(sim.url, 'GET', SYSTEM)).text.includes('/xyz/'),
  'http-plain': async (sim) => {
    if (!sim.url.startsWith('http://')) return false;
    const r = await request(`${sim.url}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ data: ['root', '0penBmc'] }),
      dispatcher: new Agent(),
    });
    await r.body.text();
    return r.statusCode === 200;
  },
  'object-not-flattened': async (sim) => `${I}.Inventory.Item` in (await (await session(sim)).get(SYSTEM)).body.data,
  'attr-wrong-value': async (sim) => {
    const s = await session(sim);
    return (await s.get(`${SYSTEM}/attr/AssetTag`)).body.data !== (await s.get(SYSTEM)).body.data.AssetTag;
  },
  'object-outside-namespace': async (sim) => (await (await session(sim)).get('/list')).body.data.some((p: string) => !p.startsWith('/xyz')),
  'missing-top-level-led': async (sim) => !(await (await session(sim)).get(`${ROOT}/`)).body.data.includes(`${ROOT}/led`),
  'present-as-string': async (sim) => typeof (await (await session(sim)).get(SYSTEM)).body.data.Present === 'string',
  'elapsed-as-string': async (sim) => typeof (await (await session(sim)).get(`${ROOT}/time/bmc`)).body.data.Elapsed === 'string',
  'host-enum-wrong-namespace': async (sim) =>
    !(await (await session(sim)).get(`${ROOT}/state/host0`)).body.data.CurrentHostState.startsWith(`${I}.`),
  'no-dhcp-object': async (sim) => (await (await session(sim)).get(`${ROOT}/network/config/dhcp`)).status === 404,
  'entry-id-not-integer': async (sim) =>
    (await (await session(sim)).get(`${ROOT}/logging/entry/`)).body.data.some((p: string) => !/\/\d+$/.test(p)),
  'attr-case-insensitive': async (sim) => (await (await session(sim)).get(`${SYSTEM}/attr/assettag`)).status === 200,
  'listing-relative-paths': async (sim) => (await (await session(sim)).get(`${ROOT}/`)).body.data.some((p: string) => !p.startsWith('/')),
  'list-not-recursive': async (sim) => !(await (await session(sim)).get(`${ROOT}/list`)).body.data.includes(`${ROOT}/network/config/dhcp`),
  'enumerate-stale-value': async (sim) => {
    const s = await session(sim);
    await s.get(`${ROOT}/inventory/enumerate`);
    await s.put(`${SYSTEM}/attr/AssetTag`, 'FRESH');
    return (await s.get(`${ROOT}/inventory/enumerate`)).body.data[SYSTEM].AssetTag !== 'FRESH';
  },
  'root-lists-nothing': async (sim) => (await (await session(sim)).get('/')).body.data.length === 0,
  'put-attr-ignored': async (sim) => {
    const s = await session(sim);
    const r = await s.put(`${SYSTEM}/attr/AssetTag`, 'NEW');
    return r.status === 200 && (await s.get(`${SYSTEM}/attr/AssetTag`)).body.data !== 'NEW';
  },
  'put-object-ignored': async (sim) => {
    const s = await session(sim);
    const full = (await s.get(SYSTEM)).body.data;
    const r = await s.put(SYSTEM, { ...full, AssetTag: 'WHOLE' });
    return r.status === 200 && (await s.get(`${SYSTEM}/attr/AssetTag`)).body.data !== 'WHOLE';
  },
  'put-rejects-get-body': async (sim) => {
    const s = await session(sim);
    return (await s.put(SYSTEM, (await s.get(SYSTEM)).body.data)).status !== 200;
  },
  'put-partial-accepted': async (sim) => (await (await session(sim)).put(SYSTEM, { AssetTag: 'PART' })).status === 200,
  'patch-accepted': async (sim) => {
    const s = await session(sim);
    await s.call('PATCH', SYSTEM, { json: { data: { AssetTag: 'PATCHED' } } });
    return (await s.get(`${SYSTEM}/attr/AssetTag`)).body.data === 'PATCHED';
  },
  'wrong-type-stored': async (sim) => (await (await session(sim)).put(`${CAP}/attr/PowerCap`, 'high')).status === 200,
  'requested-transition-readonly': async (sim) =>
    (await (await session(sim)).put(`${ROOT}/state/host0/attr/RequestedHostTransition`, `${I}.State.Host.Transition.On`)).status === 403,
  'action-ignored': async (sim) => {
    const s = await session(sim);
    await s.put(`${SYSTEM}/attr/AssetTag`, 'KEEP');
    await s.post(`${ROOT}/software/action/Reset`, []);
    return (await s.get(`${SYSTEM}/attr/AssetTag`)).body.data === 'KEEP';
  },
  'tftp-ignored': async (sim) => {
    const s = await session(sim);
    const r = await s.post(`${ROOT}/software/action/DownloadViaTFTP`, ['img.tar', `${tftp.host}:${tftp.port}`]);
    return r.status === 200 && (await s.get(`${ROOT}/software/`)).body.data.length === 1;
  },
  'reset-500': async (sim) => (await (await session(sim)).post(`${ROOT}/software/action/Reset`, [])).status === 500,
  'post-create-405': async (sim) => (await (await session(sim)).post(`${ROOT}/inventory/new`, {})).status === 405,
  'delete-ignored': async (sim) => {
    const s = await session(sim);
    await s.del(`${ROOT}/logging/entry/1`);
    return (await s.get(`${ROOT}/logging/entry/1`)).status === 200;
  },
  'delete-nondeletable-succeeds': async (sim) => (await (await session(sim)).del(SYSTEM)).status === 200,
  'upload-id-as-number': async (sim) => typeof (await upload(await session(sim), 'numeric')).body.data === 'number',
  'upload-put-405': async (sim) => (await upload(await session(sim), 'put405', 'named.tar')).status === 405,
  'upload-not-registered': async (sim) => {
    const s = await session(sim);
    const r = await upload(s, 'unregistered');
    return r.status === 200 && (await s.get(`${ROOT}/software/${r.body.data}`)).status === 404;
  },
  'bad-image-accepted': async (sim) =>
    (await (await session(sim)).call('POST', '/upload/image', { raw: Buffer.alloc(2048, 1), contentType: octet })).status === 200,
  'duplicate-accepted': async (sim) => {
    const s = await session(sim);
    await upload(s, 'twice');
    return (await upload(s, 'twice')).status === 200;
  },
  'preexisting-duplicate-accepted': async (sim) => {
    const s = await session(sim);
    const image = buildImageTarball({ version: '2.14.0-mgmt', namespace: 'mgmt_project' });
    return (await s.call('POST', '/upload/image', { raw: image, contentType: octet })).status === 200;
  },
  'no-events': async (sim) => {
    const s = await session(sim);
    return (await eventsDuring(s, {}, () => s.put(`${SYSTEM}/attr/AssetTag`, 'E'))).length === 0;
  },
  'empty-filter-drops': async (sim) => {
    const s = await session(sim);
    return (await eventsDuring(s, {}, () => s.put(`${SYSTEM}/attr/AssetTag`, 'E'))).length === 0;
  },
  'wrong-interface-name': async (sim) => {
    const s = await session(sim);
    const [e] = await eventsDuring(s, {}, () => s.put(`${SYSTEM}/attr/AssetTag`, 'E'));
    return e.interface !== `${I}.Inventory.Decorator.AssetTag`;
  },
  'no-interfaces-added': async (sim) => {
    const s = await session(sim);
    return (await eventsDuring(s, {}, () => upload(s, 'silent'))).length === 0;
  },
  'filter-paths-ignored': async (sim) => {
    const s = await session(sim);
    return (await eventsDuring(s, { paths: [CAP] }, () => s.put(`${SYSTEM}/attr/AssetTag`, 'E'))).length > 0;
  },
  'filter-interfaces-ignored': async (sim) => {
    const s = await session(sim);
    return (await eventsDuring(s, { interfaces: [`${I}.Led.Group`] }, () => s.put(`${SYSTEM}/attr/AssetTag`, 'E'))).length > 0;
  },
  'filter-and': async (sim) => {
    const s = await session(sim);
    const got = await eventsDuring(s, { paths: [SYSTEM], interfaces: [`${I}.Led.Group`] }, () => s.put(`${LED}/attr/Asserted`, 1));
    return got.length === 0;
  },
  'extra-event-kind': async (sim) => {
    const s = await session(sim);
    const got = await eventsDuring(s, {}, () => s.del(`${ROOT}/logging/entry/1`));
    return got.some((e) => e.event !== 'PropertiesChanged' && e.event !== 'InterfacesAdded');
  },
  'events-dropped': async (sim) => {
    const s = await session(sim);
    const got = await eventsDuring(s, {}, async () => {
      for (let i = 0; i < 6; i++) await s.put(`${SYSTEM}/attr/AssetTag`, `D${i}`);
    });
    return got.length !== 6;
  },
  'events-duplicated': async (sim) => {
    const s = await session(sim);
    return (await eventsDuring(s, {}, () => s.put(`${SYSTEM}/attr/AssetTag`, 'ONCE'))).length !== 1;
  },
  'events-reordered': async (sim) => {
    const s = await session(sim);
    const got = await eventsDuring(s, {}, async () => {
      for (let i = 0; i < 4; i++) await s.put(`${SYSTEM}/attr/AssetTag`, `R${i}`);
    });
    return got.map((e) => e.properties.AssetTag).join() !== 'R0,R1,R2,R3';
  },
  'bad-filter-kills-all': async (sim) => {
    const s = await session(sim);
    const good = await subscribe(sim.url, s.cookie, {});
    const bad = await subscribe(sim.url, s.cookie, 'not json');
    await bad.closed;
    await sleep(50);
    const killed = good.ws.readyState !== good.ws.OPEN;
    good.close();
    return killed;
  },
  'close-mutes-path': async (sim) => {
    const s = await session(sim);
    const leaving = await subscribe(sim.url, s.cookie, { paths: [SYSTEM] });
    const staying = await subscribe(sim.url, s.cookie, { paths: [SYSTEM, CAP] });
    leaving.close();
    await leaving.closed;
    await s.put(`${SYSTEM}/attr/AssetTag`, 'M');
    await sleep(100);
    const muted = staying.messages.length === 0;
    staying.close();
    return muted;
  },
  'error-without-description': async (sim) => typeof (await (await session(sim)).get(`${ROOT}/nope`)).body.data?.description !== 'string',
  'success-201': async (sim) => (await (await session(sim)).put(`${SYSTEM}/attr/AssetTag`, 'C')).status === 201,
  'crash-on-unicode-path': async (sim) => (await (await session(sim)).get(`${ROOT}/caf%C3%A9`)).status >= 500,
  'malformed-json-500': async (sim) =>
    (await (await session(sim)).call('PUT', `${SYSTEM}/attr/AssetTag`, { raw: '{"data":', contentType: 'application/json' })).status >= 500,
  'missing-data-member': async (sim) => !('data' in (await (await session(sim)).get(SYSTEM)).body),
  'message-without-reason': async (sim) => (await (await session(sim)).get(SYSTEM)).body.message === '200',
  'status-error-on-success': async (sim) => {
    const r = await (await session(sim)).get(SYSTEM);
    return r.status === 200 && r.body.status === 'error';
  },
  'error-data-string': async (sim) => typeof (await (await session(sim)).get(`${ROOT}/nope`)).body.data === 'string',
  'crash-on-long-segment': async (sim) => (await (await session(sim)).get(`${ROOT}/${'a'.repeat(1200)}`)).status >= 500,
  'attr-wrapped-in-map': async (sim) => typeof (await (await session(sim)).get(`${SYSTEM}/attr/AssetTag`)).body.data === 'object',
  'listing-includes-grandchildren': async (sim) =>
    (await (await session(sim)).get(`${ROOT}/`)).body.data.includes(`${ROOT}/network/config`),
  'list-includes-self': async (sim) => (await (await session(sim)).get(`${ROOT}/network/list`)).body.data.includes(`${ROOT}/network`),
  'auth-bypass-attr': async (sim) => (await call(sim.url, 'GET', `${SYSTEM}/attr/Model`)).status === 200,
  'post-create-200': async (sim) => (await (await session(sim)).post(`${ROOT}/inventory/new`, {})).status === 200,
  'delete-nondeletable-404': async (sim) => (await (await session(sim)).del(SYSTEM)).status === 404,
  'wrong-type-500': async (sim) => (await (await session(sim)).put(`${CAP}/attr/PowerCap`, 'high')).status >= 500,
  'duplicate-500': async (sim) => {
    const s = await session(sim);
    await upload(s, 'twice-500');
    return (await upload(s, 'twice-500')).status >= 500;
  },
  'upload-id-empty': async (sim) => (await upload(await session(sim), 'empty-id')).body.data === '',
  'host-current-before-requested': async (sim) => {
    const s = await session(sim);
    const got = await eventsDuring(s, { paths: [`${ROOT}/state/host0`] }, () =>
      s.put(`${ROOT}/state/host0/attr/RequestedHostTransition`, `${I}.State.Host.Transition.On`),
    );
    const names = got.map((e) => Object.keys(e.properties ?? {})[0]);
    return names.indexOf('CurrentHostState') !== -1 && names.indexOf('CurrentHostState') < names.indexOf('RequestedHostTransition');
  },
  'events-burst-reordered': async (sim) => {
    // One PUT of the object changes two properties at once: their events are emitted together.
    const s = await session(sim);
    const full = (await s.get(CAP)).body.data;
    const got = await eventsDuring(s, { paths: [CAP] }, () => s.put(CAP, { ...full, PowerCap: 700, PowerCapEnable: 1 }));
    return got.map((e) => Object.keys(e.properties ?? {})[0]).join(',') === 'PowerCapEnable,PowerCap';
  },
  'unknown-action-200': async (sim) => (await (await session(sim)).post(`${ROOT}/software/action/NoSuchMethod`, [])).status === 200,
  'lenient-utf8': async (sim) => {
    const s = await session(sim);
    const raw = Buffer.concat([Buffer.from('{"data":"tag'), Buffer.from([0xff]), Buffer.from('"}')]);
    return (await s.call('PUT', `${SYSTEM}/attr/AssetTag`, { raw, contentType: 'application/json' })).status === 200;
  },
  'object-put-silent': async (sim) => {
    const s = await session(sim);
    const full = (await s.get(SYSTEM)).body.data;
    return (await eventsDuring(s, {}, () => s.put(SYSTEM, { ...full, AssetTag: 'QUIET' }))).length === 0;
  },
  'delete-lingers-in-list': async (sim) => {
    const s = await session(sim);
    const entry = `${ROOT}/logging/entry/1`;
    await s.del(entry);
    return (await s.get(`${ROOT}/logging/list`)).body.data.includes(entry);
  },
  'upload-named-id-of-name': async (sim) => {
    const s = await session(sim);
    const id = (await upload(s, 'named-id', 'named-id.tar')).body.data;
    return (await s.get(`${ROOT}/software/${id}`)).status === 404;
  },
  'reupload-refused': async (sim) => {
    const s = await session(sim);
    const id = (await upload(s, 'again')).body.data;
    await s.del(`${ROOT}/software/${id}`);
    return (await upload(s, 'again')).status === 400;
  },
  'interfaces-filter-skips-added': async (sim) => {
    const s = await session(sim);
    return (await eventsDuring(s, { interfaces: [`${I}.Software.Version`] }, () => upload(s, 'filtered'))).length === 0;
  },
  'session-prefix-match': async (sim) => {
    const s = await session(sim);
    return (await call(sim.url, 'GET', `${ROOT}/`, { cookie: altered(s.cookie) })).status === 200;
  },
  'subscribe-session-prefix-match': async (sim) => {
    const s = await session(sim);
    const ws = openSocket(sim.url, altered(s.cookie));
    return new Promise<boolean>((resolve) => {
      ws.on('open', () => {
        ws.terminate();
        resolve(true);
      });
      ws.on('unexpected-response', () => resolve(false));
      ws.on('error', () => resolve(false));
    });
  },
  'session-fixation': async (sim) => {
    const chosen = `sid=${'ab'.repeat(32)}`;
    await call(sim.url, 'POST', '/login', { json: { data: ['root', '0penBmc'] }, cookie: chosen });
    return (await call(sim.url, 'GET', `${ROOT}/`, { cookie: chosen })).status === 200;
  },
  'logout-keeps-socket': async (sim) => {
    const a = await session(sim);
    const b = await session(sim);
    const sub = await subscribe(sim.url, a.cookie, {});
    const witness = await subscribe(sim.url, b.cookie, {});
    await a.post('/logout', []);
    await b.put(`${SYSTEM}/attr/AssetTag`, 'AFTER');
    await witness.waitFor(1, 2_000).catch(() => undefined);
    await sleep(100);
    sub.close();
    witness.close();
    return sub.messages.length > 0;
  },
  'delete-lingers-in-root-enumerate': async (sim) => {
    const s = await session(sim);
    const path = `${ROOT}/software/${(await upload(s, 'root-enumerate')).body.data}`;
    await s.del(path);
    const gone = (await s.get(`${ROOT}/software/enumerate`)).body.data[path] === undefined;
    return gone && (await s.get(`${ROOT}/enumerate`)).body.data[path] !== undefined;
  },
  'session-id-reused': async (sim) => {
    const a = await session(sim);
    await a.post('/logout', []);
    await session(sim);
    return (await a.get(`${ROOT}/`)).status === 200;
  },
  'logout-ends-newest-session': async (sim) => {
    const older = await session(sim);
    await session(sim);
    await older.post('/logout', []);
    return (await older.get(`${ROOT}/`)).status === 200;
  },
  'login-spec-body-refused': async (sim) =>
    (await call(sim.url, 'POST', '/login', { json: { data: ['root', '0penBmc'] } })).status === 400 &&
    (await call(sim.url, 'POST', '/login', { json: { username: 'root', password: '0penBmc' } })).status === 200,
  'second-login-dead': async (sim) => {
    await session(sim);
    const second = await session(sim);
    return (await second.get(`${ROOT}/`)).status === 401;
  },
  'logout-refuses-spec-body': async (sim) => {
    const s = await session(sim);
    return (await s.post('/logout', [])).status === 400 && (await s.get(`${ROOT}/`)).status === 200;
  },
  'system-lacks-serial': async (sim) => !('SerialNumber' in (await (await session(sim)).get(SYSTEM)).body.data),
  'time-enum-wrong-namespace': async (sim) =>
    String((await (await session(sim)).get(`${ROOT}/time/owner/attr/TimeOwner`)).body.data).startsWith('xyz.other_vendor.'),
  'attr-uint64-rounded': async (sim) => {
    const s = await session(sim);
    const r = await call(sim.url, 'GET', `${ROOT}/sensors/power/total_power/attr/TotalEnergy`, { cookie: s.cookie });
    return !r.text.includes('9007199254740993');
  },
  'attr-stale-after-write': async (sim) => {
    const s = await session(sim);
    await s.get(`${SYSTEM}/attr/AssetTag`);
    await s.put(`${SYSTEM}/attr/AssetTag`, 'STALE');
    return (await s.get(`${SYSTEM}/attr/AssetTag`)).body.data !== 'STALE';
  },
  'transition-write-ignored': async (sim) => {
    const s = await session(sim);
    const r = await s.put(`${ROOT}/state/host0/attr/RequestedHostTransition`, `${I}.State.Host.Transition.On`);
    return (
      r.status === 200 && (await s.get(`${ROOT}/state/host0/attr/RequestedHostTransition`)).body.data !== `${I}.State.Host.Transition.On`
    );
  },
  'bad-image-vague-description': async (sim) => {
    const s = await session(sim);
    const r = await s.call('POST', '/upload/image', { raw: Buffer.from('not a tar'), contentType: octet });
    return r.status === 400 && !/extract|already exists/i.test(String(r.body.data?.description));
  },
  'logout-answers-empty': async (sim) => {
    const s = await session(sim);
    const r = await s.post('/logout', []);
    return r.status === 200 && r.text === '';
  },
  'logout-answers-data-only': async (sim) => {
    const s = await session(sim);
    const r = await s.post('/logout', []);
    return r.status === 200 && !('message' in r.body) && 'data' in r.body;
  },
  'listing-includes-self': async (sim) => (await (await session(sim)).get(`${ROOT}/network/`)).body.data.includes(`${ROOT}/network`),
  'list-omits-deepest': async (sim) => {
    const s = await session(sim);
    const listed: string[] = (await s.get(`${ROOT}/network/host0/list`)).body.data;
    return listed.includes(`${ROOT}/network/host0/intf`) && !listed.includes(`${ROOT}/network/host0/intf/addr`);
  },
  'enumerate-includes-self': async (sim) =>
    Object.hasOwn((await (await session(sim)).get(`${ROOT}/software/enumerate`)).body.data, `${ROOT}/software`),
  'enumerate-short-enum-values': async (sim) =>
    (await (await session(sim)).get(`${ROOT}/time/enumerate`)).body.data[`${ROOT}/time/owner`].TimeOwner === 'BMC',
  'delete-drops-interface-only': async (sim) => {
    const s = await session(sim);
    const id = (await upload(s, 'half-deleted')).body.data;
    const r = await s.del(`${ROOT}/software/${id}`);
    return r.status === 200 && (await s.get(`${ROOT}/software/${id}`)).status === 200;
  },
  'interfaces-added-manager-path': async (sim) => {
    const s = await session(sim);
    const events = await eventsDuring(s, {}, () => upload(s, 'manager-path'));
    return events.some((e) => e.event === 'InterfacesAdded' && e.path === `${ROOT}/software`);
  },
  'interfaces-added-hides-one': async (sim) => {
    const s = await session(sim);
    const events = await eventsDuring(s, {}, () => upload(s, 'hides-one'));
    const added = events.find((e) => e.event === 'InterfacesAdded');
    return added !== undefined && !Object.keys(added.interfaces).some((i: string) => i.endsWith('.Common.FilePath'));
  },
  'properties-changed-stringified': async (sim) => {
    const s = await session(sim);
    const events = await eventsDuring(s, {}, () => s.put(`${CAP}/attr/PowerCap`, 650));
    return events.some((e) => e.event === 'PropertiesChanged' && e.properties.PowerCap === '650');
  },
  'auth-bypass-put-attr': async (sim) =>
    (await call(sim.url, 'PUT', `${SYSTEM}/attr/AssetTag`, { json: { data: 'NOAUTH' } })).status === 200 &&
    (await (await session(sim)).get(`${SYSTEM}/attr/AssetTag`)).body.data === 'NOAUTH',
  'auth-bypass-put-object': async (sim) => {
    const s = await session(sim);
    const full = (await s.get(SYSTEM)).body.data;
    return (await call(sim.url, 'PUT', SYSTEM, { json: { data: { ...full, AssetTag: 'NOAUTH' } } })).status === 200;
  },
  'tampered-cookie-writes': async (sim) => {
    const s = await session(sim);
    return (
      (await call(sim.url, 'PUT', `${SYSTEM}/attr/AssetTag`, { json: { data: 'TAMPERED' }, cookie: altered(s.cookie) })).status === 200
    );
  },
  'logout-ends-reads-only': async (sim) => {
    const s = await session(sim);
    await s.post('/logout', []);
    return (await s.get(`${ROOT}/`)).status === 401 && (await s.put(`${SYSTEM}/attr/AssetTag`, 'ENDED')).status === 200;
  },
  'login-password-prefix': async (sim) =>
    (await call(sim.url, 'POST', '/login', { json: { data: ['root', '0penBmc-wrong'] } })).status === 200,
  'listing-duplicates-last': async (sim) => {
    const kids: string[] = (await (await session(sim)).get(`${ROOT}/`)).body.data;
    return new Set(kids).size < kids.length;
  },
  'list-duplicates-first': async (sim) => {
    const listed: string[] = (await (await session(sim)).get(`${ROOT}/list`)).body.data;
    return new Set(listed).size < listed.length;
  },
  'list-names-missing': async (sim) =>
    ((await (await session(sim)).get(`${ROOT}/list`)).body.data as string[]).some((p) => p.endsWith('/bmc_conformance_ghost')),
  'enumerate-names-missing': async (sim) =>
    Object.keys((await (await session(sim)).get(`${ROOT}/enumerate`)).body.data).some((p) => p.endsWith('/bmc_conformance_ghost')),
  'enumerate-omits-deepest': async (sim) => {
    const s = await session(sim);
    const mapped = (await s.get(`${ROOT}/network/enumerate`)).body.data;
    for (const p of (await s.get(`${ROOT}/network/list`)).body.data as string[]) {
      if (Object.hasOwn(mapped, p)) continue;
      const own = await s.get(p);
      if (own.status === 200 && Object.keys(own.body.data).length > 0) return true;
    }
    return false;
  },
  'upload-id-not-version': async (sim) => {
    const s = await session(sim);
    const id = (await upload(s, 'id-not-version')).body.data;
    return (await s.get(`${ROOT}/software/${id}`)).status === 404;
  },
};

const probes: Record<string, Probe> = {
  ...coreProbes,
  ...AUTH_PROBES,
  ...LISTING_PROBES,
  ...EFFECT_PROBES,
  ...EVENT_PROBES,
  ...DOMAIN_PROBES,
  ...FIDELITY_PROBES,
};

describe('fault catalogue', () => {
  it('names are unique and every fault names a catalogue requirement', () => {
    expect(new Set(FAULTS.map((f) => f.name)).size).toBe(FAULTS.length);
    for (const f of FAULTS) {
      expect(isRequirementId(f.requirement), f.name).toBe(true);
      expect(f.description.length).toBeGreaterThan(0);
    }
  });

  it('every MUST and SAFETY requirement has at least one fault', () => {
    const covered = new Set(FAULTS.map((f) => f.requirement));
    expect(
      failableRequirements()
        .map((r) => r.id)
        .filter((id) => !covered.has(id)),
    ).toEqual([]);
  });

  it('unknown fault names are refused with the list of known ones', async () => {
    await expect(startSimulator({ faults: ['no-such-fault'] })).rejects.toThrow(
      /unknown fault.*no-such-fault.*known faults: .*message-wrong-code/,
    );
  });

  it('listFaultsText prints one row per fault', () => {
    const text = listFaultsText();
    for (const f of FAULTS) expect(text).toMatch(new RegExp(`^${f.name} +${f.requirement} +\\S`, 'm'));
  });

  it('every fault has a probe', () => {
    expect(Object.keys(probes).sort()).toEqual(FAULTS.map((f) => f.name).sort());
  });
});

// Side by side (vitest's maxConcurrency at once): each fault's probe has two simulators of its own and mostly waits on them.
describe.concurrent.each(FAULTS.map((f) => [f.name, f.requirement]))('fault %s (%s)', (name) => {
  it('changes behaviour, and a clean simulator does not show it', async () => {
    const probe = probes[name];
    assert(probe, `no probe for ${name}`);
    const faulty = await startSimulator({ faults: [name], transitionDelayMs: 10, log: () => {} });
    const clean = await startSimulator({ transitionDelayMs: 10 });
    try {
      expect(await probe(faulty), 'with the fault').toBe(true);
      expect(await probe(clean), 'without the fault').toBe(false);
    } finally {
      await Promise.all([faulty.close(), clean.close()]);
    }
  });
});
