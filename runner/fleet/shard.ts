/**
 * `--shard i/n`: the i-th of n parts of a fleet, the same on every machine whatever the order of
 * the targets file, so CI machines can split a fleet without talking to each other.
 */
import { UsageError } from '../../client/usage-error.js';

export interface Shard {
  /** 1-based, as CI matrices count. */
  index: number;
  count: number;
}

export function parseShard(text: string): Shard {
  const m = /^(\d+)\/(\d+)$/.exec(text.trim());
  const index = m ? Number(m[1]) : NaN;
  const count = m ? Number(m[2]) : NaN;
  if (!m || count < 1 || index < 1 || index > count)
    throw new UsageError(`--shard takes I/N with 1 <= I <= N, e.g. 2/4; "${text}" is not one.`);
  return { index, count };
}

/**
 * Sorted by name (code-unit order: a locale's collation differs between machines), then dealt out
 * round robin, so the parts differ in size by one at most.
 */
export function shardOf<T extends { name: string }>(entries: readonly T[], shard: Shard): T[] {
  const sorted = [...entries].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return sorted.filter((_, i) => i % shard.count === shard.index - 1);
}
