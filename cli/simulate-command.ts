/** `simulate`: the reference simulator in the foreground until SIGTERM or SIGINT. */
import { readFile } from 'node:fs/promises';
import { createSecureContext } from 'node:tls';
import { parseDialect, isFaultName, listFaultsText, runSimulatorCli, siteFaultsText } from '../simulator/index.js';
import { dialectError } from './dialect-flag.js';
import type { RouteLatency } from '../simulator/route-latency.js';
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
  routeLatency?: RouteLatency;
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
  const [cert, key] = await Promise.all([readPem('--cert', flags.cert), readPem('--key', flags.key)]);
  if (cert !== undefined && key !== undefined) checkPair(flags.cert!, cert, flags.key!, key);
  try {
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
      routeLatencyMs: flags.routeLatency,
      requestMs: flags.requestTime,
      cert,
      key,
    });
  } catch (err) {
    throw listenProblem(err, flags.host, flags.port) ?? err;
  }
}

/** Why the simulator could not listen at --host and --port, as the sentence naming what to change. */
export function listenProblem(err: unknown, host: string, port: number): UsageError | undefined {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'EADDRINUSE':
      return new UsageError(`Port ${port} on ${host} is in use: choose another --port, or 0 for a free one.`);
    case 'EACCES':
      return new UsageError(`Port ${port} on ${host} needs privileges this user lacks: choose a --port above 1023, or 0 for a free one.`);
    case 'EADDRNOTAVAIL':
      return new UsageError(
        `The address ${host} is not one of this machine's: give --host as one of its addresses (127.0.0.1, or 0.0.0.0 for all of them).`,
      );
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new UsageError(
        `The host name ${host} does not resolve: give --host as an address of this machine (127.0.0.1, or 0.0.0.0 for all of them).`,
      );
    default:
      return undefined;
  }
}

async function readPem(flag: string, file: string | undefined): Promise<string | undefined> {
  if (!file) return undefined;
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : code === 'EISDIR' ? 'a directory' : code;
    throw new UsageError(`Cannot read ${flag} ${file}${why ? ` (${why})` : ''}: give a readable PEM file.`);
  }
}

/** The certificate, the key and the two together, as the TLS server will take them: a bad one is named before it starts. */
function checkPair(certFile: string, cert: string, keyFile: string, key: string): void {
  const refused = (options: { cert?: string; key?: string }): boolean => {
    try {
      createSecureContext(options);
      return false;
    } catch {
      return true;
    }
  };
  if (refused({ cert })) throw new UsageError(`--cert ${certFile} holds no PEM certificate: give the certificate in PEM form.`);
  if (refused({ key }))
    throw new UsageError(`--key ${keyFile} holds no PEM private key (or one with a passphrase): give an unencrypted PEM key.`);
  if (refused({ cert, key }))
    throw new UsageError(`--key ${keyFile} is not the private key of --cert ${certFile}: give the key the certificate was made for.`);
}
