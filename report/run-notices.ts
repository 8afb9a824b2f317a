/**
 * What a reader must know before trusting the counts: the run was interrupted, or the target went
 * away during it. One sentence each, the same in the console, summary.md and summary.html.
 */
import { outageText, sessionLossLines } from '../client/errors.js';
import type { Results } from '../client/results.js';

export function runNotices(results: Pick<Results, 'interrupted' | 'downtime' | 'sessionsLost'>): string[] {
  const notices: string[] = [];
  const stop = results.interrupted;
  if (stop) {
    notices.push(`Interrupted by ${stop.signal} at ${stop.at}: the verdicts are what the run had; what it did not run is NOT_TESTED.`);
  }
  for (const o of results.downtime ?? []) {
    notices.push(
      o.back
        ? `The target was unreachable ${outageText(o)} (${o.cause}); the run waited for it and went on.`
        : `The target has been unreachable ${outageText(o)} (${o.cause}); the run stopped waiting for it.`,
    );
  }
  notices.push(...sessionLossLines(results.sessionsLost ?? []));
  return notices;
}
