/**
 * The history of one register (one declared writable attribute) as concurrent clients saw it:
 * each PUT and GET with the times it was sent and answered. The linearizability checker, the
 * shrinker, the timeline and the replay key all read this one shape.
 */

/**
 * Where a read of the register takes its value: `attr` GET {path}/attr/{name}, `object` GET {path}
 * (the attribute in the map), `enumerate` GET {parent}/enumerate (the attribute in {path}'s map).
 */
export const READ_ENDPOINTS = ['attr', 'object', 'enumerate'] as const;
export type ReadEndpoint = (typeof READ_ENDPOINTS)[number];

/** One PUT (`write`) or GET (`read`) of the register by one client (session). */
export interface RegisterOperation {
  /** Who sent it; a client sends one operation at a time. */
  client: string;
  kind: 'write' | 'read';
  /** A read: the endpoint it read the value from (attr, object or enumerate); absent means attr. */
  endpoint?: ReadEndpoint;
  /** The value written, or the value the read answered (JSON; integers may be bigint). */
  value: unknown;
  /** When it was sent, in ms on the one high-resolution clock of the verifier (performance.now()). */
  invokedAt: number;
  /** When its answer came (or when the client gave up on it), in ms on the same clock. */
  returnedAt: number;
  /**
   * False when no answer came or the answer was an error. Such a write is ambiguous: it may have
   * taken effect at any time after it was sent, or never. Such a read tells nothing and is dropped.
   */
  ok: boolean;
}

export interface RegisterHistory {
  /** The register's value before the first operation. */
  initial: unknown;
  operations: RegisterOperation[];
}

/** Throws a TypeError naming the first operation that no clock could have produced. */
export function validateHistory(history: RegisterHistory): void {
  history.operations.forEach((op, i) => {
    if (op.kind !== 'write' && op.kind !== 'read') throw new TypeError(`operation ${i}: kind must be write or read`);
    if (!Number.isFinite(op.invokedAt)) throw new TypeError(`operation ${i}: invokedAt must be a finite number`);
    if (op.ok && !(Number.isFinite(op.returnedAt) && op.returnedAt >= op.invokedAt)) {
      throw new TypeError(`operation ${i}: returnedAt must be a finite number not before invokedAt`);
    }
  });
}

/**
 * A string equal for two values exactly when jsonEqual holds (object keys in any order, a bigint
 * equal to the same integer as a number), so that values can key maps.
 */
export function valueKey(value: unknown): string {
  switch (typeof value) {
    case 'bigint':
      return `n${value}`;
    case 'number':
      return Number.isInteger(value) ? `n${BigInt(value)}` : `f${value}`;
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'undefined':
      return 'undefined';
    case 'object': {
      if (value === null) return 'null';
      if (Array.isArray(value)) return `[${value.map(valueKey).join(',')}]`;
      const record = value as Record<string, unknown>;
      const keys = Object.keys(record).sort();
      return `{${keys.map((k) => `${JSON.stringify(k)}:${valueKey(record[k])}`).join(',')}}`;
    }
    default:
      return String(value);
  }
}
