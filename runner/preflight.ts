/**
 * Before any suite runs: reach the target and log in once. Every environment problem
 * (unreachable, TLS, wrong password, timeout) becomes one plain sentence within seconds.
 */
import { BmcClient, type SerializedCookies } from '../client/http.js';
import { LoginRefusedError } from '../client/errors.js';
import { UsageError } from './usage-error.js';

export interface PreflightResult {
  client: BmcClient;
  session: SerializedCookies;
}

export async function preflight(opts: {
  target: string;
  user: string;
  password: string;
  insecure: boolean;
  timeoutMs: number;
}): Promise<PreflightResult> {
  if (!/^https?:\/\/[^/]+/.test(opts.target)) {
    throw new UsageError(`The target "${opts.target}" is not an https:// URL.`);
  }
  const client = new BmcClient({
    baseUrl: opts.target,
    user: opts.user,
    password: opts.password,
    insecure: opts.insecure,
    // Connecting and logging in should be quick even on a slow BMC; enumerations get the long timeout.
    timeoutMs: Math.min(opts.timeoutMs, 60_000),
    connectTimeoutMs: 10_000,
  });
  try {
    await client.login();
  } catch (err) {
    await client.close();
    if (err instanceof LoginRefusedError) throw new UsageError(err.message);
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
  return { client, session: client.exportCookies() };
}
