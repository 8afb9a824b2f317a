/**
 * load.json: everything a run measured (histograms, series, capacities), the thresholds and the
 * baseline comparison, and the environment it ran in. No credential ever goes in: requests carry
 * the session in headers this file never records, and the target URL loses any user:password part.
 */
import type { Verification } from './verify/verdicts.js';
import { cpus, hostname, loadavg, totalmem } from 'node:os';
import { createRequire } from 'node:module';
import type { Change } from './baseline.js';
import type { ScenarioReport } from './report/model.js';
import type { CapacityCriterion } from './capacity/capacity.js';
import type { SessionCapacity } from './capacity/sessions.js';
import type { SubscriberCapacity } from './capacity/subscribers.js';
import type { ThresholdResult } from './thresholds.js';
import type { RestoreResult } from './write-mix.js';

export interface Environment {
  node: string;
  platform: string;
  arch: string;
  cpus: number;
  cpuModel: string;
  memoryGiB: number;
  /** 1, 5 and 15 minute load averages when the run started: a busy host skews every figure. */
  loadAverage: number[];
  host: string;
  libraries: Record<string, string>;
}

export interface LoadSettings {
  profile: string;
  mode: string;
  scenarios: string[];
  connections: number;
  maxConnections: number;
  durationS: number;
  maxRequests: number;
  timeoutMs: number;
  abortErrorRatePct: number;
  rate?: number;
  ramp?: string;
  capacity?: { startRate: number; maxRate: number; criterion: CapacityCriterion; p99BoundMs?: number };
  soakS?: number;
  windowS?: number;
  subscribers?: number;
  mix?: Record<string, number>;
  writable: string[];
}

export interface LoadDocument {
  tool: 'bmc-conformance load';
  /** Version of this file's layout. */
  format: 1;
  target: string;
  embedded: boolean;
  faults: string[];
  startedAt: string;
  durationS: number;
  environment: Environment;
  settings: LoadSettings;
  results: ScenarioReport[];
  capacity: { sessions?: SessionCapacity; subscribers?: SubscriberCapacity };
  thresholds: ThresholdResult[];
  baseline?: { file: string; tolerancePct: number; changes: Change[] };
  restores: RestoreResult[];
  notes: string[];
  /** load --verify: the requirements judged under load and their verdicts. */
  verification?: Verification;
  /** Set when a Ctrl-C or SIGTERM stopped the run: its figures are those measured until then. */
  interrupted?: { signal: 'SIGINT' | 'SIGTERM'; at: string };
  /** An interrupted run has partial figures: neither a pass nor a fail. */
  verdict: 'pass' | 'fail' | 'interrupted';
  /** One sentence per problem found (each makes a run that was not interrupted exit 1). */
  failures: string[];
}

const LIBRARIES = ['autocannon', 'undici', 'ws', 'hdr-histogram-js', 'uplot'];

export function environment(): Environment {
  const require = createRequire(import.meta.url);
  const libraries: Record<string, string> = {};
  for (const name of LIBRARIES) libraries[name] = (require(`${name}/package.json`) as { version: string }).version;
  const cpu = cpus();
  return {
    node: process.version,
    platform: process.platform,
    arch: process.arch,
    cpus: cpu.length,
    cpuModel: cpu[0]?.model ?? 'unknown',
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    loadAverage: loadavg().map((x) => Math.round(x * 100) / 100),
    host: hostname(),
    libraries,
  };
}

/** The target as shown in reports: without any user:password@ part. */
export function publicUrl(url: string): string {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    return u.href.replace(/\/$/, '');
  } catch {
    return url;
  }
}
