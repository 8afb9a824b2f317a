/**
 * What every stateful check shares: the settings it runs with (StatefulEnv), and one sequence's
 * world (model and target together): its recorded steps, the requests it sends, its findings, and
 * how a command that cannot go on stops the sequence without a false finding.
 */
import type { BmcResponse } from '../../client/http.js';
import { shellQuote } from '../../client/curl.js';
import { stringifyJson } from '../../client/json.js';
import type { RunConfig, WritableAttribute } from '../../runner/config.js';
import { NotJudged } from '../harness/assert.js';
import type { CheckContext } from '../harness/check.js';
import { uploadWaitMs } from '../harness/software.js';
import { restoreValue } from '../harness/writable.js';
import { eventTimes, quietLeft, sleep } from '../events/engine/waits.js';
import { FuzzViolation } from '../fuzz/repro.js';
import type { Judge } from '../fuzz/runner.js';
import type { Credential } from './credentials.js';
import { Recorder, type SentRequest, type Step } from './steps.js';
import { messageOf } from '../../client/errors.js';

/** The settings a stateful check runs with; the event times are the run's learned pace, read at each wait (engine/waits.ts). */
export function statefulEnv(t: CheckContext) {
  // On eventTimes' object, whose quiet window is a getter: the window shrinks to the target's pace.
  return Object.assign(eventTimes(t.cfg), {
    /** The run's logged-in client (its session is $COOKIE in printed steps). */
    client: t.client,
    /** The run's settings: user, password, profile, declared writables, TFTP source. */
    cfg: t.cfg as Pick<RunConfig, 'user' | 'password' | 'profile' | 'writable' | 'tftp'>,
    ns: t.ns,
    /** `/xyz/{ns}` */
    root: t.root,
    /** How long a version may take to show after its upload answered. */
    uploadWaitMs: uploadWaitMs(t),
    /** Puts an attribute back and reads it back equal; throws when it cannot. */
    restore: (path: string, name: string, original: unknown) => restoreValue(t, path, name, original),
    /** performance.now() as the check began: its time budget covers its discovery too. */
    startedAt: performance.now(),
  });
}

export type StatefulEnv = ReturnType<typeof statefulEnv>;

/** A declared writable attribute as the checks write it: its value before the check, and the interface its events name. */
export interface Writable {
  attr: WritableAttribute;
  key: string;
  original: unknown;
  /** The interface its PropertiesChanged names (as the attribute PUT signals it), once learned. */
  iface?: string;
}

export function writableKey(path: string, name: string): string {
  return `${path}\u0000${name}`;
}

/** A finding with the sequence that shows it. */
export class StatefulViolation extends FuzzViolation {
  constructor(
    requirement: string,
    problem: string,
    readonly steps: Step[],
  ) {
    super(requirement, problem, []);
  }
}

/** What a property learned across its sequences, for the check's verdict and observations. */
export class Notes {
  /** Why a sequence could not be judged to its end (another requirement's failure stood in the way). */
  readonly unjudged = new Set<string>();
  /** What a sequence's end could not put back, each with the requirement whose endpoint failed. */
  readonly restoreFailures: Array<{ requirement: string; message: string }> = [];
  sequences = 0;
  /** Sequences that stopped at a prerequisite before their end. */
  unjudgedSequences = 0;
  commands = 0;
  requests = 0;
  /** Sequences not started: they would not have ended within the check's time budget. */
  overBudget = 0;
  /** Sequences whose last commands did not run: the time budget had passed. */
  cutByBudget = 0;
  /** The longest run of each kind of command (Command.budgetKind), for the time budget. */
  readonly longestCommand = new Map<string, number>();
  /** What the spec leaves open, as the target showed it: recorded, never failed (key → what was seen). */
  readonly observed = new Map<string, string>();
}

export interface RequestOptions {
  /** A JSON body ({"data": value} for every endpoint but a login in the field form). */
  json?: unknown;
  /** How a printed curl line writes the body: a shell word (the password as $PASSWORD). */
  shownBody?: string;
  image?: { bytes: Buffer; file: string };
  /** Send exactly these cookies instead of the run's session; none at all with `anonymous`. */
  cred?: Credential;
  anonymous?: boolean;
}

/** One sequence's world; `D` is what the check learned before its sequences (none by default). */
export class World<D = void> {
  readonly rec = new Recorder();
  violation?: StatefulViolation;
  unjudged?: string;
  stopped = false;
  /** Commands of this sequence that ran. */
  commandsRun = 0;
  /** performance.now() after which no further command runs (the check's time budget). */
  deadline = Number.POSITIVE_INFINITY;
  /** The budget ended the sequence before its last command. */
  cut = false;
  /** performance.now() as the last request that may change the target (any but GET) was sent. */
  lastChangeAt = performance.now();
  private labels = 0;
  /** Attributes this sequence wrote, with the value to restore. */
  readonly written = new Map<string, Writable>();

  constructor(
    readonly env: StatefulEnv,
    private readonly judge: Judge,
    readonly notes: Notes,
    readonly d: D,
  ) {}

  /**
   * A finding about `requirement`: stops the sequence, unless the search has already found one of
   * that requirement (then the command goes on, and the model follows what the target did).
   */
  find(requirement: string, problem: string): void {
    try {
      this.judge.violation(requirement, problem, []);
    } catch (err) {
      if (err instanceof FuzzViolation) throw new StatefulViolation(requirement, problem, this.rec.snapshot());
      throw err;
    }
  }

  /** S1, S2…: names for what the sequence opens, the same in every replay of it. */
  label(prefix: string): string {
    return `${prefix}${++this.labels}`;
  }

  /** Ends the sequence at an error: a finding, or a reason it cannot be judged further. */
  stop(err: unknown): void {
    this.stopped = true;
    if (err instanceof StatefulViolation) this.violation = err;
    else this.unjudged = err instanceof NotJudged ? err.message : `the sequence stopped: ${messageOf(err)}`;
  }

  /** A request with the run's session or exactly the cookies of `opts.cred`, recorded in the current step (if one was begun). */
  async request(method: string, path: string, opts: RequestOptions = {}): Promise<BmcResponse> {
    const { cred, anonymous } = opts;
    const own = cred === undefined && !anonymous;
    if (cred) for (const c of cred.cookies) this.env.client.redactCookie(c.value);
    const sent: SentRequest = { method, path, auth: cred?.shown ?? own };
    if (cred?.xsrf && method !== 'GET') sent.xsrf = cred.shown.replace('COOKIE', 'XSRF');
    if (opts.json !== undefined) {
      sent.contentType = 'application/json';
      if (opts.shownBody !== undefined) sent.shellBody = ['--data-raw', opts.shownBody];
      else sent.body = stringifyJson(opts.json);
    } else if (opts.image) {
      sent.contentType = 'application/octet-stream';
      sent.shellBody = ['--data-binary', `@${shellQuote(opts.image.file)}`];
    }
    this.rec.sent(sent);
    this.notes.requests++;
    if (method !== 'GET') this.lastChangeAt = performance.now();
    return this.env.client.request(method, path, {
      ...(opts.json !== undefined ? { json: opts.json } : {}),
      ...(opts.image ? { body: opts.image.bytes, contentType: 'application/octet-stream' } : {}),
      ...(own ? {} : { auth: false, relogin: false }),
      ...(cred ? { headers: cred.headers(method) } : {}),
    });
  }

  /** A write of the run's session, remembered so that the sequence's end puts the value back. */
  noteWrite(w: Writable): void {
    if (!this.written.has(w.key)) this.written.set(w.key, w);
  }

  /** Whether work expected to take `ms`, with the closing quiet window after it, ends within the check's time budget. */
  fitsBudget(ms: number): boolean {
    return performance.now() + ms + this.env.quietWindowMs <= this.deadline;
  }

  /** Waits out what is left of the quiet window of the last change (pace.ts quietLeft). */
  async quietAfterLastChange(): Promise<void> {
    await sleep(quietLeft(this.env.quietWindowMs, this.lastChangeAt));
  }

  /** Puts back every attribute the sequence wrote. */
  async restoreWrites(): Promise<void> {
    for (const { attr, original } of this.written.values()) {
      try {
        await this.env.restore(attr.path, attr.name, original);
      } catch (err) {
        this.notes.restoreFailures.push({
          requirement: 'EP-8',
          message: `${attr.path} ${attr.name}: ${messageOf(err)}`,
        });
      }
    }
  }
}
