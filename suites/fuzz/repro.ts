/**
 * What a failure report says: the broken rule in a few words, the shrunk request as one line of
 * curl, and how to replay the exact fast-check case.
 */
import { withoutTrailingSlashes } from '../../client/trim-end.js';
import { toCurl } from '../../client/curl.js';
import { requestTarget } from '../../client/transport.js';
import { isUtf8 } from 'node:buffer';
import { shellWord } from './shell.js';
import type { FuzzRequest } from './requests.js';

/** A request as it was sent, enough to print it. */
export type Sent = Pick<FuzzRequest, 'method' | 'path' | 'body' | 'contentType' | 'credentials' | 'template'>;

/** Thrown by a property: the requirement broken, what is wrong, and the request(s) that show it. */
export class FuzzViolation extends Error {
  override readonly name = 'FuzzViolation';
  constructor(
    readonly requirement: string,
    readonly problem: string,
    readonly repro: Sent[],
  ) {
    super(problem);
  }
}

const BODY_PLACEHOLDER = 'BMC_FUZZ_BODY_PLACEHOLDER';
const URL_PLACEHOLDER = 'BMC_FUZZ_URL_PLACEHOLDER';

/**
 * One line of curl that sends the same bytes: the path as the client put it on the wire
 * (--path-as-is, no globbing), the session as "$COOKIE", a login body's password as $PASSWORD,
 * long repeats as $(printf …) so that the line stays short.
 */
export function curlLine(baseUrl: string, s: Sent): string {
  const target = requestTarget('', s.path);
  const bytes = s.body === undefined ? undefined : Buffer.isBuffer(s.body) ? s.body : Buffer.from(s.body, 'utf8');
  const textual = bytes !== undefined && isUtf8(bytes) && !bytes.includes(0);
  const line = toCurl(s.method, URL_PLACEHOLDER, '', {
    auth: s.credentials,
    contentType: s.contentType,
    body: textual ? BODY_PLACEHOLDER : s.body,
  });
  const body = s.template ? shellWord(s.template.text, s.template.expansions) : textual ? shellWord(bytes.toString('utf8')) : '';
  return line
    .replace(` --data-raw ${BODY_PLACEHOLDER}`, () => ` --data-raw ${body}`)
    .replace(new RegExp(`${URL_PLACEHOLDER}$`), () => shellWord(withoutTrailingSlashes(baseUrl) + target));
}

/** Shortens a text for the one-line reason, keeping both ends. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const half = Math.floor((max - 1) / 2);
  return `${text.slice(0, half)}…${text.slice(text.length - half)}`;
}

/** The replay setting for one property: `BMC_FUZZ_PATH=<key>:<path>`. */
export const REPLAY_VARIABLE = 'BMC_FUZZ_PATH';

/** A case to replay: its fast-check path, and the requirement the search was after (if it was narrowed). */
export interface ReplayCase {
  path: string;
  requirement?: string;
}

/**
 * Parses BMC_FUZZ_PATH: `key[/REQ]:path[,…]`, e.g. `err5:41:0:2` or `env/ENV-2:7:0`. A property
 * covering several requirements looks for each one's violation in turn; `/REQ` replays the search
 * for that one. Returns the case for `key`, or undefined when the variable does not name it.
 */
export function replayCaseFor(key: string, value: string | undefined): ReplayCase | undefined {
  if (!value) return undefined;
  for (const item of value.split(',')) {
    const m = /^\s*([^:/]+)(?:\/([A-Z0-9-]+))?:(\d+(?::\d+)*)\s*$/.exec(item);
    if (m && m[1] === key) return { path: m[3]!, requirement: m[2] };
  }
  return undefined;
}

/** The replay key of a case: `key:path`, or `key/REQ:path` when the search was narrowed to REQ. */
export function replayKey(key: string, path: string, requirement?: string): string {
  return `${key}${requirement ? `/${requirement}` : ''}:${path}`;
}
