/** `simulate`: the reference simulator in the foreground until SIGTERM or SIGINT. */
import { readFile } from 'node:fs/promises';
import { parseDialect, isFaultName, listFaultsText, runSimulatorCli, siteFaultsText } from '../simulator/index.js';
import { dialectError } from './dialect-flag.js';
import { UsageError } from '../client/usage-error.js';

export interface SimulateFlags {
  host: string;
  port: number;
  namespace: string;
  user: string;
  password: string;
  fault: string[];
  objects: number;
  dialect: string;
  eventLatency?: number;
  uploadFailDelay?: number;
  requestTime?: number;
  cert?: string;
  key?: string;
  listFaults: boolean;
  sites: boolean;
}

export async function simulateCommand(flags: SimulateFlags): Promise<void> {
  if (flags.sites && !flags.listFaults) throw new UsageError('--sites goes with --list-faults.');
  if (flags.listFaults) {
    process.stdout.write(`${flags.sites ? siteFaultsText() : listFaultsText()}\n`);
    return;
  }
  const unknown = flags.fault.filter((f) => !isFaultName(f));
  if (unknown.length > 0) throw new UsageError(`Unknown fault ${unknown.join(', ')}; see simulate --list-faults.`);
  const dialect = parseDialect(flags.dialect);
  if (!dialect) throw new UsageError(dialectError(flags.dialect));
  if (Boolean(flags.cert) !== Boolean(flags.key)) throw new UsageError('--cert and --key go together.');
  const [cert, key] = await Promise.all([readPem(flags.cert), readPem(flags.key)]);
  process.exitCode = await runSimulatorCli({
    host: flags.host,
    port: flags.port,
    namespace: flags.namespace,
    user: flags.user,
    password: flags.password,
    faults: flags.fault,
    objects: flags.objects,
    dialect,
    eventLatencyMs: flags.eventLatency,
    uploadFailDelayMs: flags.uploadFailDelay,
    requestMs: flags.requestTime,
    cert,
    key,
  });
}

async function readPem(file: string | undefined): Promise<string | undefined> {
  if (!file) return undefined;
  try {
    return await readFile(file, 'utf8');
  } catch {
    throw new UsageError(`Cannot read ${file}.`);
  }
}
