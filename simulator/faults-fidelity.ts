/**
 * Faults of answers that field servers gave where the spec asks for an envelope. Each is answered
 * before the request pipeline (fidelity-answers.ts, called by dialects/spec.ts), for the spec pipeline.
 */
import type { FaultInfo } from './fault-info.js';

export const FIDELITY_FAULTS = [
  {
    name: 'doubled-slash-empty-200',
    requirement: 'ENV-4',
    operator: 'malformed',
    description:
      'a GET with a session whose path has an empty segment (a doubled slash) answers 200 with an empty body, as bmcweb was seen to',
  },
] as const satisfies readonly FaultInfo[];
