/**
 * The run-wide answers oracle: after every area of the run, each statement that holds for every
 * answer is judged from all the answers the run received (suites/harness/answers.ts), whichever
 * area asked and whatever the route or outcome. It sends nothing of its own but the leak oracle's
 * reading of the tree.
 */
import { redactText } from '../../client/evidence.js';
import { check, type CheckContext } from '../harness/check.js';
import { ANSWER_CHECKS, asResponse, type AnswerCheck } from '../harness/answer-checks.js';
import { answerTally, anonymousRefusals, type AnswerFinding } from '../harness/answers.js';
import { discoverKnowledge, leakIn } from '../harness/leak.js';

/** Findings named in a reason; the rest are counted. */
const NAMED = 12;

function findingLine(f: Pick<AnswerFinding, 'site' | 'problem' | 'exchange'>, secrets: readonly string[]): string {
  const url = f.exchange.url.length > 100 ? `${f.exchange.url.slice(0, 100)}…` : f.exchange.url;
  return redactText(`${f.site}: ${f.exchange.method} ${url} answered ${f.exchange.status}: ${f.problem}`, secrets);
}

/** The reason of a FAIL: how many answers broke the statement, at which sites, and the first of each. */
function reason(
  broken: number,
  judged: number,
  findings: ReadonlyArray<Pick<AnswerFinding, 'site' | 'problem' | 'exchange'>>,
  t: CheckContext,
): string {
  const sites = [...new Set(findings.map((f) => f.site))];
  const named = findings.slice(0, NAMED).map((f) => findingLine(f, [t.cfg.password]));
  const more = broken > named.length ? `; and ${broken - named.length} more` : '';
  return `${broken} of ${judged} answers of the run broke it, at ${sites.length} site(s) (${sites.join(', ')}): ${named.join('; ')}${more}`;
}

function answersCheck(c: AnswerCheck): void {
  check(
    c.requirement,
    `run-wide, in every answer of the run: ${c.statement}`,
    async (t) => {
      const tally = answerTally(c.requirement);
      if (tally.judged === 0) t.notTested('not judged: no answer of the run was of the kind this statement holds for');
      if (tally.broken > 0) t.showExchanges(tally.kept.map((f) => f.exchange));
      t.judge(c.requirement, tally.broken === 0, reason(tally.broken, tally.judged, tally.kept, t));
    },
    { ownSession: true },
  );
}

for (const c of ANSWER_CHECKS) answersCheck(c);

check('AUTH-5', 'run-wide, in every answer of the run: no refusal of a request without credentials carries data of the tree', async (t) => {
  const { kept, seen } = anonymousRefusals();
  if (seen === 0) t.notTested('not judged: the run sent no request without credentials that was refused with a body');
  const knowledge = await discoverKnowledge(t.client, t.ns);
  const leaks: Array<Pick<AnswerFinding, 'site' | 'problem' | 'exchange'>> = [];
  for (const a of kept) {
    const leak = leakIn(asResponse(a), { path: a.x.url, body: a.x.requestBody }, knowledge);
    if (leak) leaks.push({ site: `${a.route}:${a.outcome}`, problem: leak, exchange: a.x });
  }
  if (leaks.length > 0) t.showExchanges(leaks.slice(0, NAMED).map((l) => l.exchange));
  t.judge('AUTH-5', leaks.length === 0, reason(leaks.length, kept.length, leaks, t));
});
