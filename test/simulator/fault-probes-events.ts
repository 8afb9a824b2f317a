/** Probes of the faults in simulator/faults-events.ts: each answers true when the simulator shows the fault. */
import type { Probe } from './fault-probe-kit.js';

export const EVENT_PROBES: Record<string, Probe> = {};
