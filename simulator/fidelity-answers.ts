/** How the fidelity faults (faults-fidelity.ts) answer, before the spec pipeline. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FaultSet } from './faults.js';
import { targetPath } from './route-parse.js';

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
