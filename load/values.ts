/**
 * Values to write: each write differs from the value before it (D-Bus signals only real changes),
 * and stays within what the attribute accepts: the declared values of an enumeration, the other
 * boolean, the neighbouring integer, or a fresh string.
 */
import { jsonEqual } from '../client/json.js';
import type { WritableAttribute } from '../client/profile.js';

export class ValueCycle {
  private current: unknown;
  private used = false;

  private constructor(
    private readonly attr: WritableAttribute,
    readonly original: unknown,
    private readonly step: (current: unknown) => unknown,
  ) {
    this.current = original;
  }

  /** A cycle for the attribute, or the reason no second value can be guessed. */
  static for(attr: WritableAttribute, original: unknown): ValueCycle | string {
    const label = `${attr.path} ${attr.name}`;
    if (attr.values && attr.values.length > 0) {
      const cycle = attr.values.some((v) => sameValue(v, original)) ? attr.values : [original, ...attr.values];
      if (cycle.length < 2) return `${label} has a single declared value`;
      return new ValueCycle(attr, original, (cur) => {
        const at = cycle.findIndex((v) => sameValue(v, cur));
        return cycle[(at + 1) % cycle.length];
      });
    }
    if (typeof original === 'boolean') return new ValueCycle(attr, original, (cur) => !cur);
    if (typeof original === 'bigint') return new ValueCycle(attr, original, (cur) => (cur === original ? original + 1n : original));
    if (typeof original === 'number') {
      // 0/1 may be a D-Bus boolean shown as an integer: stay inside {0, 1}.
      const other = original === 0 || original === 1 ? 1 - original : Number.isInteger(original) ? original + 1 : original + 0.5;
      return new ValueCycle(attr, original, (cur) => (cur === original ? other : original));
    }
    if (typeof original === 'string') {
      if (/^xyz\.[^.]+\./.test(original)) return `${label} is an enumeration: name its values with --writable PATH:ATTR=V1|V2`;
      const stem = original.replace(/-bmcl\d*$/, '').slice(0, 40);
      let n = 0;
      return new ValueCycle(attr, original, () => `${stem}-bmcl${++n}`);
    }
    return `${label} holds ${original === null ? 'null' : typeof original}, which load runs do not write`;
  }

  get path(): string {
    return this.attr.path;
  }

  get name(): string {
    return this.attr.name;
  }

  /** True once a value was handed out for writing: the original must then be restored. */
  get touched(): boolean {
    return this.used;
  }

  /** The next value to write; always different from the one before it. */
  next(): unknown {
    this.used = true;
    this.current = this.step(this.current);
    return this.current;
  }
}

/** Equal as D-Bus values: JSON-equal, or a boolean and its 0/1 rendering. */
export function sameValue(a: unknown, b: unknown): boolean {
  if (typeof a === 'boolean' && typeof b === 'number') return Number(a) === b;
  if (typeof b === 'boolean' && typeof a === 'number') return Number(b) === a;
  return jsonEqual(a, b);
}
