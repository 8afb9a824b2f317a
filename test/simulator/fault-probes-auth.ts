/** Probes of the faults in simulator/faults-auth.ts: each answers true when the simulator shows the fault. */
import type { Probe } from './fault-probe-kit.js';

export const AUTH_PROBES: Record<string, Probe> = {};
