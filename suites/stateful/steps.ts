/**
 * The steps of a command sequence as they were sent, for the report of a finding: each step in a
 * few words, and the requests it made as curl lines (session cookies as shell variables, image
 * bodies as files), so that the shrunk sequence can be replayed by hand as well as by seed.
 */
import { withoutTrailingSlashes } from '../../client/trim-end.js';
import { shellQuote } from '../../client/curl.js';

export interface SentRequest {
  method: string;
  path: string;
  /** The shell variable holding the cookies sent ($COOKIE for the run's session), if any. */
  cookie?: string;
  /** The shell variable of the XSRF token echoed, if any. */
  xsrf?: string;
  contentType?: string;
  /** A JSON body as sent. */
  body?: string;
  /** A body already written as one shell word (it expands $PASSWORD). */
  shellBody?: string;
  /** A binary body, named as a file the reader makes (an image tarball). */
  file?: string;
}

export interface Step {
  /** What the step did, resolved against the model ("PUT …/attr/AssetTag = \"x\""). */
  text: string;
  requests: SentRequest[];
  /** How a file or a variable of its requests is made. */
  notes: string[];
}

export class Recorder {
  readonly steps: Step[] = [];

  begin(text: string): void {
    this.steps.push({ text, requests: [], notes: [] });
  }

  /** A request of the current step (set-up requests before the first step are not shown). */
  sent(request: SentRequest): void {
    this.steps.at(-1)?.requests.push(request);
  }

  note(text: string): void {
    const step = this.steps.at(-1);
    if (step && !step.notes.includes(text)) step.notes.push(text);
  }

  snapshot(): Step[] {
    return this.steps.map((s) => ({ ...s, requests: [...s.requests], notes: [...s.notes] }));
  }
}

/** One curl line for a request; WebSocket steps have none (their text says what was sent). */
export function curlOf(baseUrl: string, r: SentRequest): string {
  const parts = ['curl', '-k', '-sS', '-i', '--path-as-is', '-g', '-X', shellQuote(r.method)];
  if (r.cookie) parts.push('-b', `"${r.cookie}"`);
  if (r.xsrf) parts.push('-H', `"X-XSRF-TOKEN: ${r.xsrf}"`);
  parts.push('-H', shellQuote('Accept: application/json'));
  if (r.contentType) parts.push('-H', shellQuote(`Content-Type: ${r.contentType}`));
  if (r.body !== undefined) parts.push('--data-raw', shellQuote(r.body));
  if (r.shellBody !== undefined) parts.push('--data-raw', r.shellBody);
  if (r.file !== undefined) parts.push('--data-binary', `@${shellQuote(r.file)}`);
  parts.push(shellQuote(withoutTrailingSlashes(baseUrl) + r.path));
  return parts.join(' ');
}

/** "1. …; 2. …": the sequence in one line, for the first line of a finding. */
export function stepsLine(steps: readonly Step[]): string {
  return steps.map((s, i) => `${i + 1}. ${s.text}`).join('; ');
}

/** The steps with their curl lines and notes, as a report shows them. */
export function stepsDetail(baseUrl: string, steps: readonly Step[]): Array<{ step: string; curl: string[]; notes?: string[] }> {
  return steps.map((s, i) => ({
    step: `${i + 1}. ${s.text}`,
    curl: s.requests.map((r) => curlOf(baseUrl, r)),
    ...(s.notes.length > 0 ? { notes: s.notes } : {}),
  }));
}
