/** Probes of the faults in simulator/faults-fidelity.ts: each answers true when the simulator shows the fault. */
import { session, SYSTEM, type Probe } from './fault-probe-kit.js';
import { ROOT } from './helpers.js';

export const FIDELITY_PROBES: Record<string, Probe> = {
  'doubled-slash-empty-200': async (sim) => {
    const s = await session(sim);
    const doubled = await s.get(`${ROOT}//${SYSTEM.slice(ROOT.length + 1)}`);
    // The fault answers with a session only, and leaves single slashes alone.
    const plain = await s.get(SYSTEM);
    return doubled.status === 200 && doubled.text === '' && plain.text !== '';
  },
};
