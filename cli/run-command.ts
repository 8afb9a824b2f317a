/** `run`: options from commander → a conformance run; exit 0 (no FAIL), 1 (a FAIL), 2 (usage). */
import { withoutTrailingSlashes } from '../client/trim-end.js';
import type { RunFlags } from './run-flags.js';
import { withUrlCredentials } from '../client/target-url.js';
import { runConformance } from '../runner/run.js';
import { UsageError } from '../client/usage-error.js';
import { dirname } from 'node:path';
import type { Command } from 'commander';
import { loadExpectations } from '../runner/expectations.js';
import { loadTargetProfile } from '../runner/target-profile.js';
import { resolveNamespace } from '../runner/settings.js';
import { namespaceFlag } from './target-flags.js';
// The dialect's name only: the simulator itself loads when the run starts it (runner/embedded.ts).
import { parseDialect } from '../simulator/dialects/dialect.js';
import { dialectError } from './dialect-flag.js';
import { fleetCommand, fleetRequested, type FleetFlags } from './fleet-command.js';

export async function runCommand(flags: RunFlags & FleetFlags, cmd?: Command): Promise<void> {
  if (fleetRequested(flags)) return fleetCommand(flags, cmd);
  if (flags.target !== undefined && flags.target.trim() === '') flags.target = undefined;
  flags = withUrlCredentials(flags);
  const profile = flags.targetProfile ? await loadTargetProfile(flags.targetProfile) : undefined;
  const nsFlag = namespaceFlag(flags, cmd);
  const namespace = resolveNamespace(nsFlag, profile);
  const dialect = flags.dialect === undefined ? undefined : parseDialect(flags.dialect);
  if (flags.dialect !== undefined && !dialect) throw new UsageError(dialectError(flags.dialect));
  const pacingFlags = [flags.eventLatency, flags.uploadFailDelay, flags.requestTime, flags.routeLatency];
  if (flags.target && pacingFlags.some((f) => f !== undefined)) {
    throw new UsageError(
      '--event-latency, --upload-fail-delay, --request-time and --route-latency apply to the embedded simulator only; drop --target or them.',
    );
  }
  if (flags.allowFactoryReset && flags.profile && flags.profile !== 'destructive') {
    throw new UsageError('--allow-factory-reset needs --profile destructive.');
  }
  const outcome = await runConformance({
    target: flags.target === undefined ? undefined : withoutTrailingSlashes(flags.target),
    user: flags.user,
    password: flags.password,
    namespace,
    namespaceFrom: !nsFlag.given && profile?.namespace !== undefined ? profile.file : undefined,
    profile: flags.profile,
    insecure: flags.insecure,
    only: flags.only,
    requirements: flags.requirements,
    minJudged: flags.minJudged,
    out: flags.out,
    timeoutMs: flags.timeout,
    eventTimeoutMs: flags.eventTimeout,
    quietWindowMs: flags.quietWindow,
    eventWrites: flags.eventWrites,
    allowFactoryReset: flags.allowFactoryReset,
    tftp: flags.tftpServer ? { server: flags.tftpServer, file: flags.tftpFile } : undefined,
    writable: flags.writable,
    fuzzRuns: flags.fuzzRuns,
    statefulRuns: flags.statefulRuns,
    statefulTimeMs: flags.statefulTime === undefined ? undefined : flags.statefulTime * 1000,
    treeSnapshot: flags.treeSnapshot,
    seed: flags.seed,
    maxRequestsPerSecond: flags.rps,
    maxResponseBytes: flags.maxResponseBytes,
    rebootWaitMs: flags.rebootWait === undefined ? undefined : flags.rebootWait * 1000,
    faults: flags.fault,
    dialect,
    pacing: {
      eventLatencyMs: flags.eventLatency,
      uploadFailDelayMs: flags.uploadFailDelay,
      requestMs: flags.requestTime,
      routeLatencyMs: flags.routeLatency,
    },
    expectations: flags.expectations ? await loadExpectations(flags.expectations) : undefined,
    targetProfile: profile,
    strictExpectations: flags.strictExpectations,
    updateExpectations: flags.updateExpectations,
  });
  // An interrupted run ends within seconds: no Java start-up for the HTML report.
  if (flags.html && !outcome.results.interrupted) {
    // Loaded only for --html: its renderers are no part of a run's own work.
    const { renderHtml } = await import('./report-command.js');
    await renderHtml(dirname(outcome.resultsFile));
  }
  process.exitCode = outcome.exitCode;
}
