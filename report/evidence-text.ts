/** The evidence of a requirement as plain text: its tests, their verdicts and reasons, and the last exchanges. */
import { exchangeText } from '../client/evidence.js';
import type { RequirementResult } from '../runner/results.js';

export function testsText(req: RequirementResult, exchangesPerTest: number): string {
  return req.tests
    .map((t) => {
      const head = `${t.verdict} ${t.name}${t.reason ? `\n  ${t.reason}` : ''}`;
      const shown = (t.evidence ?? []).slice(-exchangesPerTest);
      const exchanges = shown.map((x) => {
        const text = exchangeText(x);
        return `--- request\n${text.request}\n--- response\n${text.response}`;
      });
      return [head, ...exchanges].join('\n');
    })
    .join('\n\n');
}
