/**
 * Request paths: a real base from the discovered tree, a route suffix, and a short list of hostile
 * mutations (case changes, doubled or trailing slashes, dot segments, percent-encoding, unicode and
 * control characters, very long segments, reserved words in odd places, queries). Shrinking drops
 * mutations and moves every choice towards the first, plainest option, so a failing path shrinks
 * to the smallest change that still breaks the target.
 */
import fc from 'fast-check';
import type { TargetModel } from './model.js';

export type Suffix =
  | { kind: 'none' }
  | { kind: 'slash' }
  | { kind: 'list' }
  | { kind: 'enumerate' }
  | { kind: 'attr'; name: string }
  | { kind: 'action'; name: string };

export type Mutation =
  /** Change the case of one segment: 0 upper, 1 lower, 2 swap the first letter. */
  | { op: 'case'; at: number; mode: number }
  /** An empty segment: a doubled slash. */
  | { op: 'empty'; at: number }
  | { op: 'trailing' }
  | { op: 'dot'; at: number; two: boolean }
  /** `seg/..` inserted: the same path for a server that normalises dot segments. */
  | { op: 'back'; at: number }
  /** Percent-encode one character of a segment. */
  | { op: 'pct'; at: number; pos: number; lower: boolean }
  /** Join a segment to the next with %2F instead of a slash. */
  | { op: 'slash2f'; at: number }
  | { op: 'char'; at: number; pos: number; ch: string }
  | { op: 'long'; at: number; len: number; ch: string }
  | { op: 'reserved'; at: number; word: string }
  | { op: 'query'; text: string };

export interface PathCase {
  base: string;
  suffix: Suffix;
  mutations: Mutation[];
}

/** Characters that break naive path handling. The first ones are what shrinking prefers. */
export const HOSTILE_CHARS = [
  'é',
  '%ff',
  ' ',
  '\u0000',
  '%00',
  '✓',
  '😀',
  '\u202e',
  '\u200b',
  '\ufeff',
  'İ',
  'ß',
  'e\u0301',
  '\ud800',
  '\t',
  '\n',
  '\r',
  '\u007f',
  '\u0085',
  '%',
  '%%',
  '%zz',
  '%0',
  '%e9',
  '%C3%A9',
  '%c3',
  ';',
  '?',
  '#',
  '"',
  "'",
  '<',
  '>',
  '{',
  '}',
  '|',
  '^',
  '`',
  '*',
  '~',
  ':',
  '@',
  '&',
  '=',
  '+',
  '$',
  ',',
  '[',
  ']',
  '!',
  '(',
  // Those below can address another object on a server that decodes or normalises paths.
  '%2e',
  '%2e%2e',
  '%2f',
  '%2F',
  '%5c',
  '\\',
  '%c0%af',
  '\uff0f',
  '.',
  '..',
] as const;

/** Characters that cannot turn a path into another existing path on a normalising server. */
export const INERT_CHARS = HOSTILE_CHARS.slice(0, HOSTILE_CHARS.indexOf('%2e'));

export const RESERVED_WORDS = ['attr', 'list', 'enumerate', 'action', 'attr/', 'action/', 'list/', 'enumerate/'] as const;

export const LONG_LENGTHS = [256, 1024, 4096, 8192, 20_000] as const;

/** Real attribute or method names, slightly wrong: near misses are where lookups go astray. */
export function nearMiss(name: string, op: number, extra: string): string {
  if (name === '') return extra;
  switch (op % 9) {
    case 0:
      return name.toLowerCase() === name ? name.toUpperCase() : name.toLowerCase();
    case 1:
      return name.slice(0, -1);
    case 2:
      return name + name.slice(-1);
    case 3:
      return `${name} `;
    case 4:
      return ` ${name}`;
    case 5:
      return name[0] === name[0]!.toUpperCase() ? name[0]!.toLowerCase() + name.slice(1) : name[0]!.toUpperCase() + name.slice(1);
    case 6:
      return name + extra;
    case 7:
      // A look-alike: Cyrillic а for Latin a, or a dotless ı for i.
      return name.replace(/a/, 'а').replace(/i/, 'ı');
    default:
      return `${name}\u0000`;
  }
}

function swapFirstLetter(s: string): string {
  const i = s.search(/[A-Za-z]/);
  if (i < 0) return s;
  const c = s[i]!;
  return s.slice(0, i) + (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase()) + s.slice(i + 1);
}

function pctEncode(ch: string, lower: boolean): string {
  return [...Buffer.from(ch, 'utf8')]
    .map((b) => {
      const hex = b.toString(16).padStart(2, '0');
      return `%${lower ? hex : hex.toUpperCase()}`;
    })
    .join('');
}

function applyMutation(segs: string[], m: Mutation, query: string[]): void {
  const n = segs.length;
  const pick = (at: number) => (n === 0 ? -1 : at % n);
  const slot = (at: number) => at % (n + 1);
  switch (m.op) {
    case 'case': {
      const i = pick(m.at);
      if (i < 0) return;
      const s = segs[i]!;
      segs[i] = m.mode % 3 === 0 ? s.toUpperCase() : m.mode % 3 === 1 ? s.toLowerCase() : swapFirstLetter(s);
      return;
    }
    case 'empty':
      segs.splice(slot(m.at), 0, '');
      return;
    case 'trailing':
      segs.push('');
      return;
    case 'dot':
      segs.splice(slot(m.at), 0, m.two ? '..' : '.');
      return;
    case 'back': {
      const i = pick(m.at);
      if (i < 0) segs.push('x', '..');
      else segs.splice(i + 1, 0, '..', segs[i]!);
      return;
    }
    case 'pct': {
      const i = pick(m.at);
      if (i < 0 || segs[i] === '') return;
      const chars = [...segs[i]!];
      const p = m.pos % chars.length;
      chars[p] = pctEncode(chars[p]!, m.lower);
      segs[i] = chars.join('');
      return;
    }
    case 'slash2f': {
      const i = pick(m.at);
      if (i < 0 || i + 1 >= n) return;
      segs.splice(i, 2, `${segs[i]}%2F${segs[i + 1]}`);
      return;
    }
    case 'char': {
      const i = pick(m.at);
      if (i < 0) {
        segs.push(m.ch);
        return;
      }
      const s = segs[i]!;
      const p = m.pos % (s.length + 1);
      segs[i] = s.slice(0, p) + m.ch + s.slice(p);
      return;
    }
    case 'long':
      segs.splice(slot(m.at), 0, m.ch.repeat(m.len));
      return;
    case 'reserved':
      segs.splice(slot(m.at), 0, ...m.word.split('/'));
      return;
    case 'query':
      query.push(m.text);
      return;
  }
}

/** The request path of a case, exactly as it is handed to the client (which sends it verbatim). */
export function renderPath(c: PathCase): string {
  const segs = c.base === '/' ? [] : c.base.slice(1).split('/');
  switch (c.suffix.kind) {
    case 'none':
      break;
    case 'slash':
      if (segs.length > 0) segs.push('');
      break;
    case 'list':
    case 'enumerate':
      segs.push(c.suffix.kind);
      break;
    case 'attr':
    case 'action':
      segs.push(c.suffix.kind, c.suffix.name);
      break;
  }
  const query: string[] = [];
  for (const m of c.mutations) applyMutation(segs, m, query);
  return `/${segs.join('/')}${query.length > 0 ? `?${query.join('&')}` : ''}`;
}

const at = fc.nat({ max: 15 });

/**
 * One mutation. `inert` leaves out every mutation that could make the path name another existing
 * object on a server that decodes or normalises paths (dot segments, %2F, %2E, backslashes): it is
 * used for requests that change things, so they cannot land on a real object by accident.
 */
export function mutationArb(inert = false): fc.Arbitrary<Mutation> {
  const chars = inert ? INERT_CHARS : HOSTILE_CHARS;
  const all: Array<fc.WeightedArbitrary<Mutation>> = [
    { weight: 4, arbitrary: fc.record({ op: fc.constant('char' as const), at, pos: fc.nat({ max: 40 }), ch: fc.constantFrom(...chars) }) },
    { weight: 2, arbitrary: fc.record({ op: fc.constant('case' as const), at, mode: fc.nat({ max: 2 }) }) },
    { weight: 2, arbitrary: fc.record({ op: fc.constant('empty' as const), at }) },
    { weight: 1, arbitrary: fc.constant({ op: 'trailing' as const }) },
    { weight: 2, arbitrary: fc.record({ op: fc.constant('pct' as const), at, pos: fc.nat({ max: 40 }), lower: fc.boolean() }) },
    {
      weight: 1,
      arbitrary: fc.record({
        op: fc.constant('long' as const),
        at,
        len: fc.constantFrom(...LONG_LENGTHS),
        ch: fc.constantFrom('a', 'é', '%41', '/'),
      }),
    },
    { weight: 2, arbitrary: fc.record({ op: fc.constant('reserved' as const), at, word: fc.constantFrom(...RESERVED_WORDS) }) },
    {
      weight: 1,
      arbitrary: fc.record({
        op: fc.constant('query' as const),
        text: fc.constantFrom('x=1', '', 'data=1', '%', 'a=%ff', '=', '&&', 'x=é', '#'),
      }),
    },
  ];
  if (!inert) {
    all.push(
      { weight: 2, arbitrary: fc.record({ op: fc.constant('dot' as const), at, two: fc.boolean() }) },
      { weight: 1, arbitrary: fc.record({ op: fc.constant('back' as const), at }) },
      { weight: 1, arbitrary: fc.record({ op: fc.constant('slash2f' as const), at }) },
    );
  } else {
    // A long segment of slashes could be collapsed onto a real path: inert ones use letters only.
    all[5] = {
      weight: 1,
      arbitrary: fc.record({ op: fc.constant('long' as const), at, len: fc.constantFrom(...LONG_LENGTHS), ch: fc.constantFrom('a', 'é') }),
    };
  }
  return fc.oneof(...all);
}

export function mutationsArb(inert = false, maxLength = 3): fc.Arbitrary<Mutation[]> {
  return fc.oneof(
    { withCrossShrink: true },
    { weight: 2, arbitrary: fc.constant([] as Mutation[]) },
    { weight: 3, arbitrary: fc.array(mutationArb(inert), { minLength: 1, maxLength }) },
  );
}

/** A name that is real, nearly real, or made up. */
export function nameArb(real: readonly string[]): fc.Arbitrary<string> {
  const made = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 });
  if (real.length === 0) return made;
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...real) },
    {
      weight: 3,
      arbitrary: fc
        .tuple(fc.constantFrom(...real), fc.nat({ max: 8 }), fc.constantFrom('x', '_', '0', 'é'))
        .map(([n, op, x]) => nearMiss(n, op, x)),
    },
    { weight: 1, arbitrary: made },
  );
}

export function suffixArb(model: TargetModel): fc.Arbitrary<Suffix> {
  const methods = [...new Set(model.actions.map(([, m]) => m))];
  return fc.oneof(
    { withCrossShrink: true },
    { weight: 3, arbitrary: fc.constant<Suffix>({ kind: 'none' }) },
    { weight: 2, arbitrary: fc.constant<Suffix>({ kind: 'slash' }) },
    { weight: 2, arbitrary: fc.constant<Suffix>({ kind: 'list' }) },
    { weight: 2, arbitrary: fc.constant<Suffix>({ kind: 'enumerate' }) },
    { weight: 3, arbitrary: nameArb(model.attrNames).map((name): Suffix => ({ kind: 'attr', name })) },
    { weight: 1, arbitrary: nameArb(methods).map((name): Suffix => ({ kind: 'action', name })) },
  );
}

/** Any base of the tree with any suffix and hostile mutations: for requests that change nothing. */
export function readPathArb(model: TargetModel): fc.Arbitrary<PathCase> {
  const anyBase = fc.record({ base: fc.constantFrom(...model.bases), suffix: suffixArb(model), mutations: mutationsArb(false) });
  if (model.attrPairs.length === 0) return anyBase;
  // An attribute of the very object it belongs to, possibly misspelt.
  const ownAttr = fc
    .record({
      pair: fc.constantFrom(...model.attrPairs),
      near: fc.option(fc.tuple(fc.nat({ max: 8 }), fc.constantFrom('x', '_', 'é')), { freq: 2 }),
      mutations: mutationsArb(false),
    })
    .map(({ pair: [base, name], near, mutations }): PathCase => ({
      base,
      suffix: { kind: 'attr', name: near ? nearMiss(name, near[0], near[1]) : name },
      mutations,
    }));
  return fc.oneof({ weight: 3, arbitrary: anyBase }, { weight: 1, arbitrary: ownAttr });
}

/**
 * Paths below the sentinel (a name the namespace does not have), mutated only in inert ways: a
 * request that changes things sent there cannot reach an existing object.
 */
export function sentinelPathArb(model: TargetModel): fc.Arbitrary<PathCase> {
  const tails = ['', '/inventory/system', '/logging/entry/1', '/software', '/state/host0'];
  return fc.record({
    base: fc.constantFrom(...tails).map((tail) => `${model.sentinel}${tail}`),
    suffix: fc.oneof(
      fc.constant<Suffix>({ kind: 'none' }),
      fc.constant<Suffix>({ kind: 'slash' }),
      nameArb(model.attrNames).map((name): Suffix => ({ kind: 'attr', name })),
      fc.constantFrom('Reset', 'Delete', 'DownloadViaTFTP').map((name): Suffix => ({ kind: 'action', name })),
      fc.constant<Suffix>({ kind: 'list' }),
    ),
    mutations: mutationsArb(true),
  });
}
