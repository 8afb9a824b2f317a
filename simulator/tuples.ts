/**
 * Arrays and regex matches read as tuples of a known length, so that the code using them needs no
 * check for a missing element at each index.
 */

/** The items of two arrays pairwise. The arrays must be of the same length (a RangeError otherwise). */
export function zip<A, B>(a: readonly A[], b: readonly B[]): [A, B][] {
  if (a.length !== b.length) throw new RangeError(`zip of arrays of lengths ${a.length} and ${b.length}`);
  const out: [A, B][] = [];
  const second = b[Symbol.iterator]();
  for (const x of a) {
    const y = second.next();
    if (y.done) break;
    out.push([x, y.value]);
  }
  return out;
}

/** The first two capture groups of `re` in `s`; undefined when it does not match (or a group took no part). */
export function match2(re: RegExp, s: string): [string, string] | undefined {
  const m = re.exec(s);
  return m?.[1] === undefined || m[2] === undefined ? undefined : [m[1], m[2]];
}
