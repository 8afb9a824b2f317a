/** Faults of well-formed listings and object reads. */
import type { FaultInfo } from './faults.js';

export const LISTING_FAULTS: readonly FaultInfo[] = [];
