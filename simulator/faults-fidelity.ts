/**
 * Faults of answers that field servers gave where the spec asks for an envelope. Each is answered
 * before the request pipeline (server.ts), for the spec pipeline.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FaultInfo, FaultSet } from './faults.js';
import { targetPath } from './route-parse.js';

export const FIDELITY_FAULTS = [
  {
    name: 'doubled-slash-empty-200',
    requirement: 'ENV-4',
    operator: 'malformed',
    description:
      'a GET with a session whose path has an empty segment (a doubled slash) answers 200 with an empty body, as bmcweb was seen to',
  },
] as const satisfies readonly FaultInfo[];

/**
 * Answers `req` as an active fidelity fault does, if one applies; true when it did. `hasSession`
 * tells whether the request carries a live session (refusals stay the pipeline's).
 */
export function answerFidelityFault(faults: FaultSet, req: IncomingMessage, res: ServerResponse, hasSession: () => boolean): boolean {
  if (!faults.has('doubled-slash-empty-200') || req.method !== 'GET') return false;
  if (!targetPath(req.url).slice(1).includes('//') || !hasSession()) return false;
  res.writeHead(200, { 'Content-Length': '0' });
  res.end();
  return true;
}
