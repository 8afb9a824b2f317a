/** Probes of the faults in simulator/faults-listings.ts: each answers true when the simulator shows the fault. */
import type { Probe } from './fault-probe-kit.js';

export const LISTING_PROBES: Record<string, Probe> = {};
