/** Probes of the faults in simulator/faults-auth.ts: each answers true when the simulator shows the fault. */
import { buildImageTarball } from '../../simulator/image-archive.js';
import { call, ROOT, subscribe, type Session } from './helpers.js';
import { altered, LED, octet, session, upload, type Probe } from './fault-probe-kit.js';

const SOFTWARE = `${ROOT}/software`;
const versions = async (s: Session): Promise<string[]> => (await s.get(`${SOFTWARE}/`)).body.data;
const uploaded = async (s: Session, version: string): Promise<string> => `${SOFTWARE}/${(await upload(s, version)).body.data}`;

/** A cookie of a session that logged out. */
async function endedCookie(sim: Parameters<Probe>[0]): Promise<string> {
  const ended = await session(sim);
  await ended.post('/logout', []);
  return ended.cookie;
}

/** Whether a socket opened with `cookie` receives the change a live session then makes. */
async function socketReceives(s: Session, cookie: string): Promise<boolean> {
  const sub = await subscribe(s.sim.url, cookie, { paths: [LED] }).catch(() => undefined);
  if (!sub) return false;
  try {
    const before = (await s.get(`${LED}/attr/Asserted`)).body.data;
    await s.put(`${LED}/attr/Asserted`, before === 1 ? 0 : 1);
    return (await sub.waitFor(1, 2_000).catch(() => [])).length > 0;
  } finally {
    sub.close();
  }
}

export const AUTH_PROBES: Record<string, Probe> = {
  'tampered-cookie-subscribes': async (sim) => {
    const s = await session(sim);
    return socketReceives(s, altered(s.cookie));
  },
  'ended-cookie-subscribes': async (sim) => {
    const cookie = await endedCookie(sim);
    return socketReceives(await session(sim), cookie);
  },
  'auth-bypass-delete': async (sim) => {
    const path = await uploaded(await session(sim), 'noauth-delete');
    await call(sim.url, 'DELETE', path);
    return !(await versions(await session(sim))).includes(path);
  },
  'ended-cookie-deletes': async (sim) => {
    const path = await uploaded(await session(sim), 'ended-delete');
    const cookie = await endedCookie(sim);
    const refusedRead = (await call(sim.url, 'GET', path, { cookie })).status === 401;
    await call(sim.url, 'DELETE', path, { cookie });
    return refusedRead && !(await versions(await session(sim))).includes(path);
  },
  'auth-bypass-action': async (sim) => {
    const path = await uploaded(await session(sim), 'noauth-action');
    await call(sim.url, 'POST', `${path}/action/Delete`, { json: { data: [] } });
    return !(await versions(await session(sim))).includes(path);
  },
  'tampered-cookie-uploads': async (sim) => {
    const s = await session(sim);
    const raw = buildImageTarball({ version: 'tampered-upload' });
    return (await call(sim.url, 'POST', '/upload/image', { raw, contentType: octet, cookie: altered(s.cookie) })).status === 200;
  },
  'refused-upload-registers': async (sim) => {
    const before = (await versions(await session(sim))).length;
    const raw = buildImageTarball({ version: 'refused-upload' });
    const res = await call(sim.url, 'POST', '/upload/image', { raw, contentType: octet });
    return res.status === 401 && (await versions(await session(sim))).length > before;
  },
};
