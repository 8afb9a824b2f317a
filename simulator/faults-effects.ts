/** Faults of effects of writes, deletes, uploads and actions on the whole tree, value domains, POST refusals. */
import type { FaultInfo } from './faults.js';

export const EFFECT_FAULTS: readonly FaultInfo[] = [];
