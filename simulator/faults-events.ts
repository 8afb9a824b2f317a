/** Faults of event filters probed with near misses, premature and padded events. */
import type { FaultInfo } from './faults.js';

export const EVENT_FAULTS: readonly FaultInfo[] = [];
