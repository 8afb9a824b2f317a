/**
 * Which requests of a failing test a finding is about, read from the finding's reason and the
 * test's evidence: `replay` may claim a reproduction only once it has repeated those.
 *
 * A reason names a request as `METHOD /path` (a long path cut short with "…"), and a subscription
 * as `(filter {…})`. A reason that names none leaves every request of the test as possibly the one.
 */
import type { Exchange } from '../client/evidence.js';

export interface NamedRequest {
  method: string;
  path: string;
}

export interface FailingRequests {
  /** The exchanges of the evidence the finding is about. */
  exchanges: ReadonlySet<Exchange>;
  /** Requests the reason names that the evidence does not hold (it keeps only a test's last exchanges). */
  absent: NamedRequest[];
  /** `named`: the reason names them; `every`: it names none, so every request of the test counts. */
  basis: 'named' | 'every';
}

const METHOD_AND_PATH = /\b(GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS|TRACE) (\/\S*)/g;
const STATUS = /\b[1-5]\d\d\b/g;

export function isSubscription(x: Exchange): boolean {
  return x.method === 'GET' && /^\/subscribe\/?$/.test(x.url);
}

/** A path as the reason wrote it: exact (without the punctuation after it), or the start of one cut short. */
function pathMatcher(written: string): { exact: string; test: (url: string) => boolean } {
  const cut = written.indexOf('…');
  if (cut >= 0) {
    const start = written.slice(0, cut);
    return { exact: start, test: (url) => url.startsWith(start) };
  }
  const bare = written.replace(/[:;,.)]+$/, '');
  return { exact: bare, test: (url) => url === written || url === bare };
}

export function failingRequests(reason: string | undefined, evidence: readonly Exchange[]): FailingRequests {
  const text = reason ?? '';
  const statuses = new Set([...text.matchAll(STATUS)].map((m) => Number(m[0])));
  const found = new Set<Exchange>();
  const absent: NamedRequest[] = [];
  let named = false;
  for (const [, method, written] of text.matchAll(METHOD_AND_PATH)) {
    named = true;
    const path = pathMatcher(written!);
    const matches = evidence.filter((x) => x.method === method && !isSubscription(x) && path.test(x.url));
    if (matches.length === 0) {
      if (!absent.some((a) => a.method === method && a.path === path.exact)) absent.push({ method: method!, path: path.exact });
      continue;
    }
    // The same request sent more than once: the reason's status picks the one it is about.
    const byStatus = matches.filter((x) => x.status !== undefined && statuses.has(x.status));
    for (const x of byStatus.length > 0 ? byStatus : matches) found.add(x);
  }
  for (const x of evidence) {
    if (isSubscription(x) && x.requestBody !== undefined && text.includes(`(filter ${x.requestBody})`)) {
      named = true;
      found.add(x);
    }
  }
  if (!named) return { exchanges: new Set(evidence), absent: [], basis: 'every' };
  return { exchanges: found, absent, basis: 'named' };
}
