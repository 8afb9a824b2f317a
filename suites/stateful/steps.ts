/**
 * The steps of a command sequence as they were sent, for the report of a finding: each step in a
 * few words, and the requests it made as curl lines (session cookies as shell variables, image
 * bodies as files), so that the shrunk sequence can be replayed by hand as well as by seed.
 */
import { toCurl, type CurlOptions } from '../../client/curl.js';

/** A request as it was sent, with what its curl line needs (cookies and tokens as shell variables, an image as a file). */
export interface SentRequest extends CurlOptions {
  method: string;
  path: string;
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

/** The steps with their curl lines and notes, as a report shows them. */
export function stepsDetail(baseUrl: string, steps: readonly Step[]): Array<{ step: string; curl: string[]; notes?: string[] }> {
  return steps.map((s, i) => ({
    step: `${i + 1}. ${s.text}`,
    curl: s.requests.map((r) => toCurl(r.method, baseUrl, r.path, r)),
    ...(s.notes.length > 0 ? { notes: s.notes } : {}),
  }));
}
