/** What an HTTP scenario sends: one fixed request, or a stream of them (mixes, writes). */

export interface HttpRequest {
  method: 'GET' | 'PUT';
  /** Request target under the base URL. */
  path: string;
  /** JSON text. */
  body?: string;
}

export interface RequestSource {
  /** Set when every request is the same, so an engine can build it once. */
  readonly fixed?: HttpRequest;
  next(): HttpRequest;
}

export function fixedSource(req: HttpRequest): RequestSource {
  return { fixed: req, next: () => req };
}

/**
 * Requests interleaved by weight, deterministically (smooth weighted round-robin): weights 3 and 1
 * give a a b a, a a b a, … so every stretch of a run sees the mix, not bursts of one kind.
 */
export function weightedSource(entries: readonly { req: HttpRequest; weight: number }[]): RequestSource {
  const live = entries.filter((e) => e.weight > 0);
  if (live.length === 0) throw new RangeError('A request mix needs at least one positive weight.');
  const total = live.reduce((sum, e) => sum + e.weight, 0);
  const current = live.map(() => 0);
  return {
    next() {
      let best = 0;
      for (let i = 0; i < live.length; i++) {
        current[i]! += live[i]!.weight;
        if (current[i]! > current[best]!) best = i;
      }
      current[best]! -= total;
      return live[best]!.req;
    },
  };
}
