/**
 * What `replay` says of each request of a test and of the whole, and its exit code: a finding
 * counts as reproduced only when every request it is about was repeated and answered as in the run.
 */
import { SIGNAL_EXIT, type StopSignal } from './signals.js';

export type RequestVerdict =
  | { kind: 'same' }
  | { kind: 'different'; run: string; now: string }
  | { kind: 'not-repeatable'; why: string; byHand?: string }
  /** Repeated, but what it is judged on could not be compared (the run did not keep it all). */
  | { kind: 'not-compared'; why: string };

export interface RequestReport {
  /** `METHOD /path`, or `subscription N (filter …)`. */
  label: string;
  /** The finding is about it. */
  failing: boolean;
  /** A subscription: its differences are among the subscription differences too. */
  subscription?: true;
  verdict: RequestVerdict;
}

/**
 * reproduced: every request the finding is about was repeated and answered as in the run, and
 * every subscription received (or missed) the same changes; different: all were repeated and one
 * answered differently, or a subscription did; not-repeatable: one could not be repeated (or
 * compared), so the replay cannot tell.
 */
export type ReplayResult = 'reproduced' | 'different' | 'not-repeatable';

/** The exit code of a replay that could not repeat a request the finding is about. */
export const NOT_REPEATABLE_EXIT = 3;

/** Differences named in the closing sentence. */
const MAX_LISTED = 5;

export function verdictText(v: RequestVerdict): string {
  switch (v.kind) {
    case 'same':
      return 'repeated, same answer';
    case 'different':
      return `repeated, different answer (run: ${v.run}, now: ${v.now})`;
    case 'not-repeatable':
      return `not repeatable (why: ${v.why})`;
    case 'not-compared':
      return `repeated, not compared (why: ${v.why})`;
  }
}

export function judge(requests: readonly RequestReport[], subscriptionDifferences: readonly string[]): ReplayResult {
  const failing = requests.filter((r) => r.failing);
  if (failing.some((r) => r.verdict.kind === 'not-repeatable' || r.verdict.kind === 'not-compared')) return 'not-repeatable';
  if (failing.some((r) => r.verdict.kind === 'different') || subscriptionDifferences.length > 0) return 'different';
  return 'reproduced';
}

function listed(items: readonly string[]): string {
  const shown = items.slice(0, MAX_LISTED).join('; ');
  return items.length > MAX_LISTED ? `${shown}; and ${items.length - MAX_LISTED} more` : shown;
}

function count(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The closing sentence: what the replay established, and what it could not. */
export function conclusion(
  result: ReplayResult,
  requests: readonly RequestReport[],
  subscriptionDifferences: readonly string[],
  subscriptions: number,
): string {
  const failing = requests.filter((r) => r.failing);
  const others = requests.filter((r) => !r.failing);
  const unrepeated = others.filter((r) => r.verdict.kind === 'not-repeatable').length;
  const otherDifferent = others.filter((r) => r.verdict.kind === 'different').length;
  const notes = [
    ...(unrepeated > 0 ? [`${count(unrepeated, 'other request was', 'other requests were')} not repeated`] : []),
    ...(otherDifferent > 0 ? [`${count(otherDifferent, 'other request', 'other requests')} answered differently`] : []),
  ];
  const aside = notes.length > 0 ? ` (${notes.join(', ')}: see above)` : '';
  if (result === 'not-repeatable') {
    const blocked = failing.filter((r) => r.verdict.kind === 'not-repeatable' || r.verdict.kind === 'not-compared').map((r) => r.label);
    return `not reproduced: the replay could not repeat what the finding is about: ${listed(blocked)}; run its curl line above by hand${aside}`;
  }
  if (result === 'different') {
    const differences = [
      ...failing.flatMap((r) =>
        r.verdict.kind === 'different' && !r.subscription ? [`${r.label} answered ${r.verdict.now}; in the run ${r.verdict.run}`] : [],
      ),
      ...subscriptionDifferences,
    ];
    return `did not reproduce: ${listed(differences)}${aside}`;
  }
  const about = failing.length === 1 ? `${failing[0]!.label} answered` : `the ${failing.length} requests the finding is about answered`;
  const events = subscriptions > 0 ? ', and every subscription received (or missed) the same changes' : '';
  return `reproduced: ${about} as in the run${events}${aside}`;
}

export function replayExitCode(outcome: { result: ReplayResult; interrupted?: StopSignal }): number {
  if (outcome.interrupted) return SIGNAL_EXIT[outcome.interrupted];
  return outcome.result === 'reproduced' ? 0 : outcome.result === 'not-repeatable' ? NOT_REPEATABLE_EXIT : 1;
}
