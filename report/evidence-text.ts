/** The evidence of a requirement as plain text: its tests, their verdicts and reasons, and the last exchanges. */
import { exchangeText, type Exchange } from '../client/evidence.js';
import { replayScript, timelineText } from '../client/timeline.js';
import type { RequirementResult } from '../client/results.js';
import { displayTarget } from './target.js';

/** A test's evidence as one timeline and the lines that replay it against the target. */
export function replayText(evidence: readonly Exchange[], target: string): string {
  if (evidence.length === 0) return '';
  return `--- timeline\n${timelineText(evidence)}\n--- replay\n${replayScript(evidence, displayTarget(target))}`;
}

export function testsText(req: RequirementResult, exchangesPerTest: number, target?: string): string {
  return req.tests
    .map((t) => {
      const head = `${t.verdict} ${t.name}${t.reason ? `\n  ${t.reason}` : ''}`;
      const shown = (t.evidence ?? []).slice(-exchangesPerTest);
      const exchanges = shown.map((x) => {
        const text = exchangeText(x);
        return `--- request\n${text.request}\n--- response\n${text.response}`;
      });
      const replay = target === undefined ? '' : replayText(t.evidence ?? [], target);
      return [head, ...exchanges, ...(replay ? [replay] : [])].join('\n');
    })
    .join('\n\n');
}
