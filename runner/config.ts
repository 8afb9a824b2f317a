/** The settings a conformance run hands to every suite (through vitest's provide/inject). */
import type { Profile, WritableAttribute } from '../client/profile.js';
import type { TreeSnapshot } from '../client/tree-reads.js';

// The profile and writable vocabulary lives in client/ (load/ shares it); the suites read it here.
export { PROFILES, parseWritable, profileAllows, type Profile, type WritableAttribute } from '../client/profile.js';
export interface TftpSource {
  /** The TFTP server as DownloadViaTFTP takes it: host, or host:port. */
  server: string;
  /** File name of a valid image tarball on that server. */
  file: string;
}

export interface RunConfig {
  target: string;
  user: string;
  password: string;
  namespace: string;
  profile: Profile;
  insecure: boolean;
  /** Per-request timeout. */
  timeoutMs: number;
  /** How long to wait for an expected event. */
  eventTimeoutMs: number;
  /** How long "no matching event arrives" is watched for. */
  quietWindowMs: number;
  /** Writes in one measured event sequence (fewer on hardware). */
  eventWrites: number;
  /** How late events may arrive on this platform (target profile): bounds the latency learned in the run. */
  eventLatency: { expectedMs?: number; maxMs?: number };
  allowFactoryReset: boolean;
  tftp?: TftpSource;
  writable: WritableAttribute[];
  /** Instances the destructive profile may delete when it has none of its own (target profile). */
  deletable: string[];
  /** Serialized cookie jar of the session the runner opened: suites reuse it. */
  session?: unknown;
  /** Set when the login of the run answered success but gives no working session (EP-1's failure). */
  sessionProblem?: string;
  fuzzRuns: number;
  /** Command sequences per stateful property. */
  statefulRuns: number;
  /**
   * How long each stateful check may take from its start, discovery included: sequences, shrinks
   * and commands that would not end within it do not start (the sequence under way then puts the
   * target back); undefined: as long as its sequences take (the embedded simulator).
   */
  statefulTimeMs?: number;
  /**
   * How the checks of whole-tree effects read the tree: an enumerate of the root, or its list and a
   * GET of each object; undefined until the run measures which is cheaper (runner/read-costs.ts).
   */
  treeSnapshot?: TreeSnapshot;
  /** What the enumerate of the namespace root took before the suites (undefined: not measured). */
  rootEnumerateMs?: number;
  seed: number;
  maxRequestsPerSecond?: number;
  /** Requests in flight at once (target profile); the client's pool size. */
  connections?: number;
  /** The target is the embedded simulator. */
  embedded: boolean;
  /** The embedded simulator's time for a typical request (a dialect at its field pace; 0: at once). */
  embeddedRequestMs?: number;
  /** Answers longer than this are cut off and reported, never buffered whole. */
  maxResponseBytes?: number;
  /** How long a request waits for a target that went away (a reboot) to come back. */
  rebootWaitMs?: number;
  /** Allure labels per test and a step per request with its exchange; off when only verdicts are wanted. */
  requestSteps: boolean;
  /**
   * The fuzz areas' variables (BMC_FUZZ_PATH, BMC_FUZZ_LOGIN_FAILURES) as the run found them: the
   * suites read them here, since a suites' worker kept from an earlier run has that run's environment.
   */
  fuzzVariables: Readonly<Record<string, string>>;
}

declare module 'vitest' {
  export interface ProvidedContext {
    bmc: RunConfig;
  }
}

export { TREE_SNAPSHOTS, type TreeSnapshot } from '../client/tree-reads.js';
