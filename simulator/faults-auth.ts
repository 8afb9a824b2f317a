/** Faults of authentication of every route, tried for real (positive twins). */
import type { FaultInfo } from './faults.js';

export const AUTH_FAULTS: readonly FaultInfo[] = [];
