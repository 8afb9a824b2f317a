/** What both engines (closed loop on autocannon, open loop on undici) are given. */
import { withoutTrailingSlashes } from '../client/trim-end.js';
import type { Progress } from './recorder.js';
import type { HttpRequest, RequestSource } from './request-source.js';
import type { AnswerTap } from './verify/answers.js';

/** How each scenario of a load runs: set once for the run, handed to every engine as it is. */
export interface LoadBounds {
  /** https://host[:port][/prefix] */
  baseUrl: string;
  insecure: boolean;
  /** Closed loop: concurrent requests. Open loop: the socket pool. */
  connections: number;
  durationS: number;
  /** Upper bound on requests, whatever the duration. */
  maxRequests: number;
  timeoutMs: number;
  /** 0–1: stop early above this share of failed requests. */
  abortErrorRate: number;
  /** Soak: windows of this many seconds. */
  windowS?: number;
  /** Aborted when the user interrupts the run. */
  signal?: AbortSignal;
}

export interface EngineOptions extends LoadBounds {
  /** The session's headers for a request of this method (cookie; XSRF echo on writes). */
  headers: (req: HttpRequest) => Record<string, string>;
  source: RequestSource;
  onSecond?: (p: Progress) => void;
  /** load --verify: the answers it wants are read in full and judged. */
  tap?: AnswerTap;
}

/** Origin and path prefix of a base URL: requests go to origin + prefix + path. */
export function splitBaseUrl(baseUrl: string): { origin: string; prefix: string } {
  const url = new URL(baseUrl);
  return { origin: url.origin, prefix: withoutTrailingSlashes(url.pathname) };
}
