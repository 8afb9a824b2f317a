/**
 * The settings of `run` and `load`, from three layers and one rule: a flag wins over the target
 * profile, the profile over the defaults of the kind of target (the embedded spec simulator, an
 * embedded field dialect, a target at a URL). The embedded target adds what it knows of itself
 * (its TFTP source, how late a polling dialect delivers events) beneath the profile.
 */
import type { DialectName } from '../simulator/index.js';
import type { RunConfig, TftpSource, WritableAttribute } from './config.js';
import type { TargetProfile } from './target-profile.js';

export type TargetKind = 'simulator' | 'dialect' | 'url';

/** An embedded field dialect is run as its server would be; the spec simulator as fast as it goes. */
export function targetKind(embedded: boolean, dialect?: DialectName): TargetKind {
  if (!embedded) return 'url';
  return dialect && dialect !== 'spec' ? 'dialect' : 'simulator';
}

/** The options every command that talks to a target shares (see targetOptions in cli/main.ts). */
export interface TargetFlags {
  target?: string;
  user: string;
  password: string;
  namespace: string;
  insecure: boolean;
  timeout?: number;
}

/** The settings a run and a load resolve alike: RunConfig's, each given (undefined where none applies). */
export type TargetSettings = Pick<
  RunConfig,
  | 'profile'
  | 'insecure'
  | 'timeoutMs'
  | 'eventTimeoutMs'
  | 'quietWindowMs'
  | 'eventWrites'
  | 'eventLatency'
  | 'allowFactoryReset'
  | 'deletable'
  | 'fuzzRuns'
  | 'statefulRuns'
> & {
  tftp: TftpSource | undefined;
  /** Undefined: as long as its sequences take. */
  statefulTimeMs: number | undefined;
  maxRequestsPerSecond: number | undefined;
  /** Requests in flight at once: the run's pool size, the load's cap on connections. */
  concurrency: number | undefined;
  /** How long to wait for a target that went away to come back. */
  rebootWaitMs: number;
};

/** What a command line can set (a switch left off is no flag given). */
export type SettingFlags = Partial<Omit<TargetSettings, 'eventLatency' | 'deletable' | 'concurrency'>>;

const SIMULATOR: TargetSettings = {
  // The embedded simulator is ours to break: everything runs against it.
  profile: 'destructive',
  insecure: true,
  // The simulator answering slowly is itself a fault.
  timeoutMs: 15_000,
  // It delivers events within milliseconds. The quiet window is the one the mutation self-test
  // proves every fault is caught with (runner/mutation/mutation.ts), beside busy cores too.
  eventTimeoutMs: 3_000,
  quietWindowMs: 200,
  eventWrites: 10,
  eventLatency: {},
  allowFactoryReset: true,
  tftp: undefined,
  deletable: [],
  // Beyond each property's fixed boundary cases: 300 took 1.4 s more of a 14 s run than 150, and the
  // mutation self-test proves every fault caught at 60.
  fuzzRuns: 150,
  statefulRuns: 4,
  statefulTimeMs: undefined,
  maxRequestsPerSecond: undefined,
  concurrency: undefined,
  // It restarts at once.
  rebootWaitMs: 30_000,
};

/** Each stateful check's budget on a target: a few sequences where events take milliseconds, one where they take seconds. */
const STATEFUL_TIME_MS = 10_000;

/** Defaults per kind of target, where neither a flag nor the target profile says otherwise. */
export const DEFAULTS: Readonly<Record<TargetKind, TargetSettings>> = {
  simulator: SIMULATOR,
  // A field dialect is paced as its server (time per request, event latency) and run as a target
  // is, so that its areas take what the server's would; it answers a failed upload only after its
  // image manager gave up (10-15 s).
  dialect: { ...SIMULATOR, timeoutMs: 45_000, fuzzRuns: 100, statefulTimeMs: STATEFUL_TIME_MS },
  url: {
    profile: 'safe',
    insecure: false,
    // Real BMCs can take minutes for an enumerate.
    timeoutMs: 120_000,
    // Field servers deliver events seconds late.
    eventTimeoutMs: 10_000,
    quietWindowMs: 6_000,
    eventWrites: 4,
    eventLatency: {},
    allowFactoryReset: false,
    tftp: undefined,
    deletable: [],
    fuzzRuns: 100,
    statefulRuns: 4,
    // Each sequence waits out its event latency: a fast target runs them all, a slow one as many as the budget holds.
    statefulTimeMs: STATEFUL_TIME_MS,
    maxRequestsPerSecond: undefined,
    concurrency: undefined,
    // A BMC takes minutes to boot.
    rebootWaitMs: 300_000,
  },
};

/**
 * The one precedence rule: each setting of `full` (its keys are the settings) comes from the first
 * layer that gives it a value, `full` itself last. Layers may carry other members: they are ignored.
 */
export function layered<T extends object>(layers: readonly object[], full: T): T {
  const out = { ...full };
  for (const key of Object.keys(full) as (keyof T)[]) {
    const layer = layers.find((l) => (l as Partial<T>)[key] !== undefined) as Partial<T> | undefined;
    if (layer) out[key] = layer[key]!;
  }
  return out;
}

/** What a target profile says of the settings. */
function fromProfile(p: TargetProfile | undefined): Partial<TargetSettings> {
  if (!p) return {};
  return {
    timeoutMs: p.timeouts.requestMs,
    eventTimeoutMs: p.timeouts.eventMs,
    quietWindowMs: p.timeouts.quietWindowMs,
    eventWrites: p.eventWrites,
    eventLatency: p.eventLatency,
    tftp: p.tftp,
    deletable: p.deletable,
    maxRequestsPerSecond: p.rps,
    concurrency: p.concurrency,
  };
}

/** What the embedded target knows of itself. */
export interface EmbeddedFacts {
  tftp?: TftpSource;
  /** How late its events come (a polling dialect); 0: at once. */
  eventLatencyMs: number;
}

export interface SettingsInput {
  kind: TargetKind;
  /** The command line's values, by the settings' names. */
  flags?: SettingFlags;
  profile?: TargetProfile;
  embedded?: EmbeddedFacts;
  /**
   * The latency to expect bounds the waits for events (a run learns it as it goes): with no flag
   * or profile timeout, the event timeout is 1.5 times its maximum and the quiet window the maximum.
   * A load times event deliveries against the plain timeouts (false).
   */
  waitsFollowLatency?: boolean;
}

export function resolveSettings({ kind, flags = {}, profile, embedded, waitsFollowLatency = true }: SettingsInput): TargetSettings {
  // A switch left off is no flag given: the kind of target decides.
  const given = { ...flags, insecure: flags.insecure || undefined, allowFactoryReset: flags.allowFactoryReset || undefined };
  // An embedded dialect that polls is paced as the field server is: its latency, with the margin the
  // shipped profiles give theirs (phosphor-rest polls every 2 s, and its profile allows 5 s).
  const polled = embedded && embedded.eventLatencyMs > 0 ? embedded.eventLatencyMs : undefined;
  const own: Partial<TargetSettings> = {
    tftp: embedded?.tftp,
    eventLatency: polled ? { expectedMs: polled, maxMs: Math.round(polled * 2.5) } : undefined,
  };
  const layers = [given, fromProfile(profile), own];
  const maxMs = layered(layers, DEFAULTS[kind]).eventLatency.maxMs;
  const paced = waitsFollowLatency ? { eventTimeoutMs: maxMs ? Math.round(maxMs * 1.5) : undefined, quietWindowMs: maxMs } : {};
  return layered([given, fromProfile(profile), paced, own], DEFAULTS[kind]);
}

/** The namespace by the same rule: a flag (or BMC_NAMESPACE) wins over the profile's, which wins over the default. */
export function resolveNamespace(flag: { value: string; given: boolean }, profile?: TargetProfile): string {
  return layered([{ namespace: flag.given ? flag.value : undefined }, { namespace: profile?.namespace }], { namespace: flag.value })
    .namespace;
}

/** The first list that names any attribute (flags, then the profile, then the embedded target's own). */
export function firstNamed(...lists: readonly (readonly WritableAttribute[])[]): WritableAttribute[] {
  return [...(lists.find((l) => l.length > 0) ?? [])];
}

/** Load's own settings: gentle on a real BMC (a small ARM computer), generous on the embedded simulator. */
export interface LoadKnobs {
  connections: number;
  durationS: number;
  maxConnections: number;
  /** Requests per second of duration: the default cap on requests. */
  requestsPerSecondCap: number;
  subscribers: number;
  maxSubscribers: number;
  maxSessions: number;
  eventWriteRate: number;
  startRate: number;
  maxRate: number;
}

const LOAD_EMBEDDED: LoadKnobs = {
  connections: 10,
  durationS: 3,
  maxConnections: 256,
  requestsPerSecondCap: 50_000,
  subscribers: 20,
  maxSubscribers: 256,
  maxSessions: 64,
  eventWriteRate: 20,
  startRate: 50,
  maxRate: 20_000,
};

export const LOAD_DEFAULTS: Readonly<Record<TargetKind, LoadKnobs>> = {
  simulator: LOAD_EMBEDDED,
  dialect: LOAD_EMBEDDED,
  url: {
    connections: 2,
    durationS: 5,
    maxConnections: 16,
    requestsPerSecondCap: 1_000,
    subscribers: 5,
    maxSubscribers: 64,
    maxSessions: 32,
    eventWriteRate: 2,
    startRate: 5,
    maxRate: 100,
  },
};
