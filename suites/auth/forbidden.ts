/**
 * Credentials that must not authorise a request, for the authentication checks that try routes
 * for real: none at all, a live session's cookie altered, a logged-out session's cookie. Each is
 * tried on a request the run's session is shown to make (its positive twin): a refusal proves
 * authentication only beside a twin that took; a try that took is a finding whatever the twin did.
 */
import type { BmcResponse } from '../../client/http.js';
import { describeResponse } from '../harness/assert.js';
import type { CheckContext } from '../harness/check.js';
import { discoverKnowledge, leakIn, type SentRequest } from '../harness/leak.js';
import { Credential, TAKEN_BREAKS, type Channel } from '../stateful/credentials.js';

export interface Forbidden {
  /** "without credentials", "with a live session cookie altered", "with a logged-out session's cookie" */
  how: string;
  /** The requirement a try with these credentials that is taken breaks. */
  requirement: string;
  /** The cookies sent; none at all when undefined. */
  cred?: Credential;
  /** The logged-out session's cookie: it tells about logout only where the others were refused. */
  ended: boolean;
}

export interface ForbiddenSet {
  /** In the order they are tried: none, altered, logged out. */
  variants: Forbidden[];
  /** The live session whose cookie was altered: the twin of a WebSocket check sends it unaltered. */
  live: Credential;
}

/**
 * Two sessions of the check's own: one logged out at once (its cookie ended), one kept live (its
 * cookie altered). Both end after the check; the run's shared session is not touched.
 */
export async function forbiddenCredentials(t: CheckContext, channel: Channel): Promise<ForbiddenSet> {
  const own = t.client.fork();
  t.cleanup(() => own.close());
  const ended = Credential.fromLogin(await own.login(), own.baseUrl, '$ENDED_COOKIE');
  await own.logout();
  const other = t.client.fork();
  t.cleanup(async () => {
    await other.logout().catch(() => undefined);
    await other.close();
  });
  const live = Credential.fromLogin(await other.login(), other.baseUrl, '$COOKIE');
  const requirement = TAKEN_BREAKS[channel];
  return {
    live,
    variants: [
      { how: 'without credentials', requirement, ended: false },
      { how: 'with a live session cookie altered', requirement, cred: live.tampered('altered'), ended: false },
      { how: "with a logged-out session's cookie", requirement: 'EP-2', cred: ended, ended: true },
    ],
  };
}

/** The headers that send exactly the variant's cookies (none at all without credentials). */
export function headersOf(v: Forbidden, method: string): Record<string, string> {
  return v.cred?.headers(method) ?? {};
}

export function isRefusal(res: BmcResponse): boolean {
  return res.status < 200 || res.status >= 300;
}

/**
 * The tries of one request, judged in order. The logged-out cookie is judged only where the
 * request checks credentials at all: where none and an altered one were refused.
 */
export class Tries {
  private takenBy?: Forbidden;
  readonly statuses: Record<string, number | string> = {};

  constructor(
    private readonly t: CheckContext,
    /** The request, for messages (a check that replaces its target renames it). */
    public what: string,
  ) {}

  /** Whether `v` is to be tried; records why not when it is not. */
  judges(v: Forbidden): boolean {
    if (!v.ended || !this.takenBy) return true;
    this.t.observe(`${this.what} ${v.how}`, `not judged: it was taken ${this.takenBy.how} (${this.takenBy.requirement})`, 'AUTH-6');
    return false;
  }

  /**
   * One try: refused (HTTP) or not, and what it changed (undefined: nothing). A try that was
   * taken or changed something is `v.requirement`'s failure.
   */
  judge(v: Forbidden, answer: string, refused: boolean, changed: string | undefined): void {
    this.statuses[`${this.what} ${v.how}`] = answer;
    const ok = refused && changed === undefined;
    if (!ok && !v.ended) this.takenBy ??= v;
    this.t.judge(v.requirement, ok, `${this.what} ${v.how} answered ${answer}${changed ? `, and ${changed}` : ''}`);
  }

  /**
   * An HTTP try: judged, and its refusal searched for data of the target (AUTH-5). `refused`
   * defaults to a status outside 2xx (an upload refused for its image was not refused for its
   * credentials: the caller says so).
   */
  async judgeHttp(
    v: Forbidden,
    res: BmcResponse,
    request: SentRequest,
    changed: string | undefined,
    refused = isRefusal(res),
  ): Promise<void> {
    this.judge(v, describeResponse(res), refused, changed);
    this.statuses[`${this.what} ${v.how}`] = res.status;
    if (!refused) return; // what an answer that was taken carries is the requirement's failure, not a leak
    const leak = leakIn(res, request, await discoverKnowledge(this.t.client, this.t.ns, this.t.cfg.treeSnapshot));
    this.t.judge('AUTH-5', !leak, `${this.what} ${v.how}: the refusal (${res.status}) carries data of the target: ${leak}`);
  }
}
