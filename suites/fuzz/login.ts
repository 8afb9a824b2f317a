/**
 * Login bodies that must never open a session: wrong arity, wrong types, unknown and near-miss
 * users, near-miss passwords, other body forms, malformed JSON and wrong content types.
 *
 * Invariant: a body never carries the real user together with the real password, in any form.
 * Near-miss passwords are derived from the real one, so they are printed as bash expansions of
 * $PASSWORD (`${PASSWORD%?}`, `${PASSWORD^^}` …) and the password itself never reaches a report.
 */
import fc from 'fast-check';
import { stringifyJson } from '../../client/json.js';
import { jsonValueArb, malformArb, renderBody, type Malform } from './bodies.js';
import { nearMiss } from './paths.js';
import { shellWord } from './shell.js';

export const PASSWORD_OPS = ['drop-last', 'append', 'upper', 'lower', 'swap-first', 'drop-first', 'prepend', 'twice'] as const;
export type PasswordOp = (typeof PASSWORD_OPS)[number];

/**
 * The real user name at the boundaries where a layer below the server (C strings, PAM, a shell,
 * a URL decoder, a case-folding directory) may cut or fold it into the real name: each is sent with
 * the right password in every run, whatever the seed.
 */
export const USER_BOUNDARIES = [
  'nul-end',
  'nul-inside',
  'tab-end',
  'newline-end',
  'cr-end',
  'space-start',
  'space-end',
  'slash-end',
  'upper',
  'first-case',
  'percent-encoded',
  'non-ascii',
  'overlong',
] as const;
export type UserBoundary = (typeof USER_BOUNDARIES)[number];

export function userBoundary(user: string, b: UserBoundary): string {
  switch (b) {
    case 'nul-end':
      return `${user}\u0000`;
    case 'nul-inside':
      return `${user}\u0000${user}`;
    case 'tab-end':
      return `${user}\t`;
    case 'newline-end':
      return `${user}\n`;
    case 'cr-end':
      return `${user}\r`;
    case 'space-start':
      return ` ${user}`;
    case 'space-end':
      return `${user} `;
    case 'slash-end':
      return `${user}/`;
    case 'upper':
      return user.toUpperCase() === user ? user.toLowerCase() : user.toUpperCase();
    case 'first-case':
      return toggleFirst(user);
    case 'percent-encoded':
      return user === '' ? '%00' : `%${user.charCodeAt(0).toString(16).padStart(2, '0').toUpperCase()}${user.slice(1)}`;
    case 'non-ascii':
      return `${user}\u00e9`;
    case 'overlong':
      return user.padEnd(Math.max(300, user.length + 1), user || 'x');
  }
}

export type Cred =
  | { kind: 'user' }
  | { kind: 'user-boundary'; boundary: UserBoundary }
  | { kind: 'password' }
  | { kind: 'near-user'; op: number; extra: string }
  | { kind: 'near-password'; op: PasswordOp; extra: string }
  | { kind: 'value'; value: unknown };

export type LoginForm = 'data-array' | 'username-password' | 'data-object' | 'bare-array' | 'no-data' | 'form-urlencoded';

export interface LoginCase {
  form: LoginForm;
  creds: Cred[];
  malform: Malform;
  contentType: string | undefined;
}

export interface Credentials {
  user: string;
  password: string;
}

function toggleFirst(s: string): string {
  const c = s[0];
  if (c === undefined) return s;
  const t = c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase();
  return t + s.slice(1);
}

export function derivePassword(password: string, op: PasswordOp, extra: string): string {
  switch (op) {
    case 'append':
      return password + extra;
    case 'prepend':
      return extra + password;
    case 'drop-last':
      return password.slice(0, -1);
    case 'drop-first':
      return password.slice(1);
    case 'upper':
      return password.toUpperCase();
    case 'lower':
      return password.toLowerCase();
    case 'swap-first':
      return toggleFirst(password);
    case 'twice':
      return password + password;
  }
}

/** The bash expansion of $PASSWORD that gives the same string (for ASCII passwords). */
function expansion(op: PasswordOp | 'exact'): string {
  switch (op) {
    case 'exact':
    case 'append':
    case 'prepend':
      return '${PASSWORD}';
    case 'drop-last':
      return '${PASSWORD%?}';
    case 'drop-first':
      return '${PASSWORD#?}';
    case 'upper':
      return '${PASSWORD^^}';
    case 'lower':
      return '${PASSWORD,,}';
    case 'swap-first':
      return '${PASSWORD~}';
    case 'twice':
      return '${PASSWORD}${PASSWORD}';
  }
}

/** Survives JSON and URL encoding unchanged (letters, digits, underscores only). */
const MARK = (i: number) => `__BMCPW${i}__`;

interface Rendered {
  /** What is sent. */
  body: string | Buffer;
  /** The body with password-derived parts as markers, and the shell expansion of each marker. */
  template?: { text: string; expansions: string[] };
  /** The real user appears in the body (a failed attempt may count against the account). */
  namesUser: boolean;
}

function credValue(c: Cred, who: Credentials, marks?: string[]): unknown {
  switch (c.kind) {
    case 'user':
      return who.user;
    case 'near-user':
      return nearMiss(who.user, c.op, c.extra);
    case 'user-boundary':
      return userBoundary(who.user, c.boundary);
    case 'value':
      return c.value;
    case 'password': {
      if (!marks) return who.password;
      marks.push(expansion('exact'));
      return MARK(marks.length - 1);
    }
    case 'near-password': {
      if (!marks) return derivePassword(who.password, c.op, c.extra);
      marks.push(expansion(c.op));
      const m = MARK(marks.length - 1);
      return c.op === 'append' ? m + c.extra : c.op === 'prepend' ? c.extra + m : m;
    }
  }
}

function bodyValue(form: LoginForm, values: unknown[]): unknown {
  switch (form) {
    case 'data-array':
      return { data: values };
    case 'username-password':
      return { username: values[0], password: values[1] };
    case 'data-object':
      return { data: { username: values[0], password: values[1] } };
    case 'bare-array':
      return values;
    case 'no-data':
      return { user: values[0], data: null };
    case 'form-urlencoded':
      return values;
  }
}

function formText(values: unknown[]): string {
  // Lone surrogates cannot be percent-encoded: they go as U+FFFD, as a UTF-8 encoder sends them.
  const wellFormed = (t: string) => Buffer.from(t, 'utf8').toString('utf8');
  const s = (v: unknown) => encodeURIComponent(wellFormed(typeof v === 'string' ? v : v === undefined ? '' : stringifyJson(v)));
  return `username=${s(values[0])}&password=${s(values[1])}`;
}

function usesPassword(c: LoginCase): boolean {
  return c.creds.some((x) => x.kind === 'password' || x.kind === 'near-password');
}

export function renderLogin(c: LoginCase, who: Credentials): Rendered {
  const values = c.creds.map((x) => credValue(x, who));
  const namesUser = values.some((v) => v === who.user);
  const text = (vals: unknown[]) => (c.form === 'form-urlencoded' ? formText(vals) : stringifyJson(bodyValue(c.form, vals)));
  const body =
    c.malform.kind === 'none' ? text(values) : renderBody({ shape: 'bare', value: bodyValue(c.form, values), malform: c.malform });
  if (!usesPassword(c)) return { body, namesUser };
  // Password-derived parts print as $PASSWORD expansions; only possible when the password needs no escaping.
  const marks: string[] = [];
  const printable =
    c.form === 'form-urlencoded' ? encodeURIComponent(who.password) === who.password : JSON.stringify(who.password) === `"${who.password}"`;
  const templ = text(c.creds.map((x) => credValue(x, who, marks)));
  return {
    body,
    namesUser,
    template: printable ? { text: templ, expansions: marks } : { text: templ, expansions: marks.map(() => '<password>') },
  };
}

/** The shell word for a template body: $PASSWORD expansions inside double quotes. */
export function shellTemplate(template: { text: string; expansions: string[] }): string {
  return shellWord(template.text, template.expansions);
}

/** True when the case cannot be a valid login whatever the server's form or parser. */
export function isNeverValid(c: LoginCase, who: Credentials): boolean {
  const values = c.creds.map((x) => credValue(x, who));
  const hasUser = values.some((v) => v === who.user);
  const hasPassword = values.some((v) => v === who.password);
  return !(hasUser && hasPassword);
}

const extraArb = fc.constantFrom('x', ' ', '\u0000', '1', 'é', '\n');

export function credArb(): fc.Arbitrary<Cred> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.constant<Cred>({ kind: 'user' }) },
    {
      weight: 4,
      arbitrary: fc.record({ kind: fc.constant('near-password' as const), op: fc.constantFrom(...PASSWORD_OPS), extra: extraArb }),
    },
    {
      weight: 3,
      arbitrary: fc.record({
        kind: fc.constant('value' as const),
        value: fc.oneof(
          { weight: 3, arbitrary: fc.string({ unit: 'grapheme', maxLength: 24 }) },
          { weight: 2, arbitrary: jsonValueArb(1) },
        ),
      }),
    },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('near-user' as const), op: fc.nat({ max: 8 }), extra: extraArb }) },
    { weight: 1, arbitrary: fc.constant<Cred>({ kind: 'password' }) },
  );
}

export function loginCaseArb(who: Credentials): fc.Arbitrary<LoginCase> {
  const creds = fc.oneof(
    { withCrossShrink: true },
    { weight: 6, arbitrary: fc.tuple(credArb(), credArb()).map((t): Cred[] => t) },
    { weight: 2, arbitrary: fc.array(credArb(), { maxLength: 4 }) },
  );
  const form = fc.oneof(
    { withCrossShrink: true },
    { weight: 8, arbitrary: fc.constant<LoginForm>('data-array') },
    { weight: 1, arbitrary: fc.constantFrom<LoginForm>('username-password', 'data-object', 'bare-array', 'no-data', 'form-urlencoded') },
  );
  const contentType = fc.oneof(
    { withCrossShrink: true },
    { weight: 8, arbitrary: fc.constant<string | undefined>('application/json') },
    {
      weight: 1,
      arbitrary: fc.constantFrom<string | undefined>(
        undefined,
        'text/plain',
        'application/x-www-form-urlencoded',
        'application/json; charset=utf-8',
        'APPLICATION/JSON',
      ),
    },
  );
  return fc
    .record({
      form,
      creds,
      malform: fc.oneof(
        { withCrossShrink: true },
        { weight: 5, arbitrary: fc.constant<Malform>({ kind: 'none' }) },
        { weight: 1, arbitrary: malformArb() },
      ),
      contentType,
    })
    .filter((c) => isNeverValid(c, who) && (c.malform.kind === 'none' || !usesPassword(c)));
}

/** The forms a login body takes in the field: the spec's, bmcweb's and OpenBMC's web UI's. */
const BOUNDARY_FORMS: readonly LoginForm[] = ['data-array', 'username-password', 'data-object'];

/**
 * The login cases every run sends first, whatever its seed: each user boundary with the right
 * password in each field form, then the right user with the right password followed by a NUL (one
 * failed login naming the user, counted by the lockout guard). None can be a valid login.
 */
export function boundaryLoginCases(who: Credentials): LoginCase[] {
  const of = (form: LoginForm, creds: Cred[]): LoginCase => ({ form, creds, malform: { kind: 'none' }, contentType: 'application/json' });
  const cases = [
    ...USER_BOUNDARIES.flatMap((boundary) =>
      BOUNDARY_FORMS.map((form) => of(form, [{ kind: 'user-boundary', boundary }, { kind: 'password' }])),
    ),
    of('data-array', [{ kind: 'user' }, { kind: 'near-password', op: 'append', extra: '\u0000' }]),
  ];
  return cases.filter((c) => isNeverValid(c, who));
}
