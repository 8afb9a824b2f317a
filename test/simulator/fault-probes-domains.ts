/** Probes of the faults in simulator/faults-domains.ts: each answers true when the simulator shows the fault. */
import { I, ROOT } from './helpers.js';
import { session, SYSTEM, type Probe } from './fault-probe-kit.js';

const HOST = `${ROOT}/state/host0`;
const TRANSITION = `${HOST}/attr/RequestedHostTransition`;

/** Writes `value` into RequestedHostTransition and answers whether it was stored. */
const transitionTakes = (value: string): Probe => {
  return async (sim) => {
    const s = await session(sim);
    await s.put(TRANSITION, value);
    return (await s.get(TRANSITION)).body.data === value;
  };
};

export const DOMAIN_PROBES: Record<string, Probe> = {
  'enum-accepts-unknown-member': transitionTakes(`${I}.State.Host.Transition.Sideways`),
  'enum-accepts-other-enum': transitionTakes(`${I}.State.Host.HostState.Off`),
  'string-cut-at-63': async (sim) => {
    const s = await session(sim);
    const long = 'x'.repeat(64);
    await s.put(`${SYSTEM}/attr/AssetTag`, long);
    return (await s.get(`${SYSTEM}/attr/AssetTag`)).body.data === long.slice(0, 63);
  },
  'post-on-object-405': async (sim) => (await (await session(sim)).post(SYSTEM, {})).status === 405,
  'post-on-listing-ok': async (sim) => {
    const s = await session(sim);
    const answers = await Promise.all([`${SYSTEM}/`, `${SYSTEM}/list`, `${SYSTEM}/enumerate`].map((p) => s.post(p, [])));
    return answers.every((r) => r.status === 200);
  },
  'post-creates-attribute': async (sim) => {
    const s = await session(sim);
    await s.post(`${SYSTEM}/attr/Created`, 'probe');
    return (await s.get(SYSTEM)).body.data.Created === 'probe';
  },
};
