/** Probes of the faults in simulator/faults-effects.ts: each answers true when the simulator shows the fault. */
import { I, ROOT } from './helpers.js';
import { CAP, LED, session, SYSTEM, tftp, upload, type Probe } from './fault-probe-kit.js';
import type { Session } from './helpers.js';

const SOFTWARE = `${ROOT}/software`;
const versions = async (s: Session): Promise<string[]> => (await s.get(`${SOFTWARE}/`)).body.data;
const uploaded = async (s: Session, version: string): Promise<string> => `${SOFTWARE}/${(await upload(s, version)).body.data}`;

export const EFFECT_PROBES: Record<string, Probe> = {
  'put-attr-writes-namesakes': async (sim) => {
    const s = await session(sim);
    await s.put(`${LED}/attr/Asserted`, 1);
    await s.put(`${LED}/attr/Asserted`, 0);
    return (await s.get(`${ROOT}/led/groups/bmc_booted/attr/Asserted`)).body.data === 0;
  },
  'put-attr-writes-neighbour-attr': async (sim) => {
    const s = await session(sim);
    await s.put(`${SYSTEM}/attr/AssetTag`, 'NEIGHBOUR');
    return (await s.get(`${SYSTEM}/attr/PrettyName`)).body.data === 'NEIGHBOUR';
  },
  'put-object-writes-namesakes': async (sim) => {
    const s = await session(sim);
    await s.put(LED, { Asserted: 0 });
    return (await s.get(`${ROOT}/led/groups/bmc_booted/attr/Asserted`)).body.data === 0;
  },
  'put-object-applies-first-change': async (sim) => {
    const s = await session(sim);
    const map = (await s.get(CAP)).body.data;
    await s.put(CAP, { ...map, PowerCap: 650, PowerCapEnable: !map.PowerCapEnable });
    const after = (await s.get(CAP)).body.data;
    return after.PowerCap !== 650 || after.PowerCapEnable === map.PowerCapEnable;
  },
  'delete-removes-next-sibling': async (sim) => {
    const s = await session(sim);
    const [a, b] = [await uploaded(s, 'next-a'), await uploaded(s, 'next-b')].sort();
    await s.del(a!);
    return (await s.get(b!)).status !== 200;
  },
  'upload-evicts-oldest': async (sim) => {
    const s = await session(sim);
    const first = await uploaded(s, 'evict-a');
    await upload(s, 'evict-b');
    return (await s.get(first)).status !== 200;
  },
  'upload-alters-other-versions': async (sim) => {
    const s = await session(sim);
    const first = await uploaded(s, 'alter-a');
    await upload(s, 'alter-b');
    return (await s.get(`${first}/attr/Activation`)).body.data !== `${I}.Software.Activation.Activations.Ready`;
  },
  'tftp-evicts-version': async (sim) => {
    const s = await session(sim);
    const first = await uploaded(s, 'tftp-evict');
    await s.post(`${SOFTWARE}/action/DownloadViaTFTP`, ['img.tar', `${tftp.host}:${tftp.port}`]);
    return (await s.get(first)).status !== 200;
  },
  'reset-ignored': async (sim) => {
    const s = await session(sim);
    await s.put(`${SYSTEM}/attr/AssetTag`, 'KEEP');
    const r = await s.post(`${SOFTWARE}/action/Reset`, []);
    return r.status === 200 && (await s.get(`${SYSTEM}/attr/AssetTag`)).body.data === 'KEEP';
  },
  'reset-keeps-versions': async (sim) => {
    const s = await session(sim);
    const version = await uploaded(s, 'reset-keeps');
    await s.post(`${SOFTWARE}/action/Reset`, []);
    return (await s.get(version)).status === 200;
  },
  'reset-keeps-writes': async (sim) => {
    const s = await session(sim);
    await s.put(`${SYSTEM}/attr/AssetTag`, 'KEEP');
    const version = await uploaded(s, 'reset-writes');
    await s.post(`${SOFTWARE}/action/Reset`, []);
    return (await s.get(version)).status !== 200 && (await s.get(`${SYSTEM}/attr/AssetTag`)).body.data === 'KEEP';
  },
  'delete-action-removes-next-sibling': async (sim) => {
    const s = await session(sim);
    const [a, b] = [await uploaded(s, 'action-a'), await uploaded(s, 'action-b')].sort();
    await s.post(`${a!}/action/Delete`, []);
    return (await versions(s)).every((p) => p !== a) && (await s.get(b!)).status !== 200;
  },
};
