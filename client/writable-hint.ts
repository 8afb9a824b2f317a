/**
 * The suites' NOT_TESTED reasons that end in "(use --writable PATH:ATTR[=V1|V2])": on a target
 * without named writables some thirty tests say it. The console says it once, with a count
 * (report/console-summary.ts); results.json and the reports keep every reason whole.
 */
const HINT = /\s*\(use --writable [^()]*\)/g;

export function namesWritableHint(reason: string | undefined): boolean {
  return reason !== undefined && new RegExp(HINT.source).test(reason);
}

export function withoutWritableHint(reason: string): string {
  return reason.replace(HINT, '');
}
