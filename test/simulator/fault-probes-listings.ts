/** Probes of the faults in simulator/faults-listings.ts: each answers true when the simulator shows the fault. */
import { call, ROOT } from './helpers.js';
import { session, type Probe } from './fault-probe-kit.js';

const IPV6 = `${ROOT}/network/eth0/ipv6/9c3d4e11`;

export const LISTING_PROBES: Record<string, Probe> = {
  // The namespace has eleven top-level children: both faults leave some of them out.
  'listing-omits-last': async (sim) => {
    const s = await session(sim);
    const kids: string[] = (await s.get(`${ROOT}/`)).body.data;
    const listed: string[] = (await s.get(`${ROOT}/list`)).body.data;
    return kids.length === 10 && listed.some((p) => p.split('/').length === 4 && !kids.includes(p));
  },
  'listing-first-page-only': async (sim) => (await (await session(sim)).get(`${ROOT}/`)).body.data.length === 4,
  'object-omits-empty-strings': async (sim) => {
    const s = await session(sim);
    const map = (await s.get(IPV6)).body.data;
    return !('Gateway' in map) && (await s.get(`${IPV6}/attr/Gateway`)).body.data === '';
  },
  'object-uint64-rounded': async (sim) => {
    const s = await session(sim);
    const r = await call(sim.url, 'GET', `${ROOT}/sensors/power/total_power`, { cookie: s.cookie });
    return !r.text.includes('9007199254740993');
  },
};
