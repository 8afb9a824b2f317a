/** What the fault probes (faults.test.ts and the fault-probes-*.ts beside it) share. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { startTftpServer, type RunningSimulator, type TftpServerHandle } from '../../simulator/index.js';
import { buildImageTarball } from '../../simulator/image-archive.js';
import { login, ROOT, sessionFor, sleep, subscribe, type Session } from './helpers.js';

/** A probe answers true when the simulator shows the faulty behaviour. */
export type Probe = (sim: RunningSimulator) => Promise<boolean>;

export const SYSTEM = `${ROOT}/inventory/system`;
export const CAP = `${ROOT}/control/power_cap`;
export const LED = `${ROOT}/led/groups/enclosure_identify`;
export const octet = 'application/octet-stream';

export let tftp: TftpServerHandle;
export let tftpRoot: string;
/** The TFTP server some probes download from: call once at the top of a test file. */
export function useTftpServer(): void {
  beforeAll(async () => {
    tftpRoot = await mkdtemp(join(tmpdir(), 'sim-fault-tftp-'));
    await writeFile(join(tftpRoot, 'img.tar'), buildImageTarball({ version: 'fault-tftp' }));
    tftp = await startTftpServer({ root: tftpRoot });
  });
  afterAll(async () => {
    await tftp.close();
    await rm(tftpRoot, { recursive: true, force: true });
  });
}

export async function session(sim: RunningSimulator): Promise<Session> {
  return sessionFor(sim, await login(sim.url));
}

export const upload = (s: Session, version: string, name?: string) =>
  s.call(name ? 'PUT' : 'POST', name ? `/upload/image/${name}` : '/upload/image', {
    raw: buildImageTarball({ version }),
    contentType: octet,
  });

/** Collects the events a subscription receives while `act` runs. */
export async function eventsDuring(s: Session, filter: unknown, act: () => Promise<unknown>, settleMs = 150): Promise<any[]> {
  const sub = await subscribe(s.sim.url, s.cookie, filter);
  // A witness that takes every event: on a busy machine, judge once the change was signalled at all.
  const witness = await subscribe(s.sim.url, s.cookie, {});
  await act();
  await witness.waitFor(1, 2_000).catch(() => undefined);
  await sleep(settleMs);
  sub.close();
  witness.close();
  return sub.messages;
}

/** The cookie with its last character changed (never to itself: the id is random). */
export function altered(cookie: string): string {
  return `${cookie.slice(0, -1)}${cookie.endsWith('0') ? '1' : '0'}`;
}
