/** Probes of the faults in simulator/faults-effects.ts: each answers true when the simulator shows the fault. */
import type { Probe } from './fault-probe-kit.js';

export const EFFECT_PROBES: Record<string, Probe> = {};
