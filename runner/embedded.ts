/**
 * The embedded target: our simulator, plus a TFTP server holding a valid image so that
 * DownloadViaTFTP can be exercised end to end. Used by `run` without --target.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator, simulatorTargetProfile, startTftpServer, type SimulatorOptions, type DialectName } from '../simulator/index.js';
import { buildImage } from '../client/image.js';
import { SimulatorLogFile } from '../simulator/log.js';
import type { TftpSource, WritableAttribute } from './config.js';

/** The simulator's own log in a run's output folder. */
export const SIMULATOR_LOG = 'simulator.log';

export interface EmbeddedTarget {
  url: string;
  user: string;
  password: string;
  namespace: string;
  writable: WritableAttribute[];
  /** How late its events come (a field dialect polls): the run paces itself by it, as on a target. */
  eventLatencyMs: number;
  /** How long a typical request takes it (a dialect at its field pace); 0: answered at once. */
  typicalRequestMs: number;
  /** Absent when started without TFTP (load runs need none). */
  tftp?: TftpSource;
  /** The simulator's log file and the lines in it so far (absent: it logs to stderr). */
  log?: { path: string; lines: number };
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  namespace: string;
  user: string;
  password: string;
  faults: string[];
  objects?: number;
  /** Serve a valid image over TFTP for DownloadViaTFTP (default true). */
  tftp?: boolean;
  /** Behave as this server (default spec). */
  dialect?: DialectName;
  /** How a dialect paces itself, shortened for tests (default: as the field server). */
  pacing?: Pick<SimulatorOptions, 'eventLatencyMs' | 'uploadFailDelayMs' | 'requestMs' | 'routeLatencyMs'>;
  /** Write the simulator's own messages to this file, not to stderr (a run's console is its verdicts'). */
  logFile?: string;
}

export async function startEmbeddedTarget(opts: EmbeddedOptions): Promise<EmbeddedTarget> {
  const logFile = opts.logFile === undefined ? undefined : new SimulatorLogFile(opts.logFile);
  const sim = await startSimulator({
    ...(logFile && { log: logFile.log }),
    namespace: opts.namespace,
    user: opts.user,
    password: opts.password,
    faults: opts.faults,
    objects: opts.objects,
    dialect: opts.dialect,
    ...opts.pacing,
  });
  const tftp = opts.tftp === false ? undefined : await startImageTftp(opts.namespace);
  return {
    url: sim.url,
    user: opts.user,
    password: opts.password,
    namespace: opts.namespace,
    writable: simulatorTargetProfile(opts.namespace).writable,
    eventLatencyMs: sim.eventLatencyMs,
    typicalRequestMs: sim.typicalRequestMs,
    tftp: tftp?.source,
    ...(logFile && { log: logFile }),
    async stop() {
      await Promise.allSettled([sim.close(), tftp?.stop()]);
    },
  };
}

/** A TFTP server on loopback holding one valid image, so DownloadViaTFTP can run end to end. */
async function startImageTftp(namespace: string): Promise<{ source: TftpSource; stop(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'bmc-conformance-tftp-'));
  const file = 'bmc-conformance-tftp.tar';
  // A version no other image of the run has, so the download registers a new software version.
  const version = `bmc-conformance-tftp-${process.pid}-${Date.now()}`;
  await writeFile(join(dir, file), await buildImage({ version, namespace }));
  const server = await startTftpServer({ root: dir });
  return {
    source: { server: `${server.host}:${server.port}`, file },
    async stop() {
      await server.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
