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
  /** The login answered success, but its credentials are refused: what the checks meet instead. */
  sessionProblem?: string;
}

export async function preflight(opts: {
  target: string;
  user: string;
  password: string;
  insecure: boolean;
  timeoutMs: number;
  /** Where to probe that the session works; without it, no probe. */
  namespace?: string;
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
  // A login that "succeeds" without credentials that work leaves nothing to test but the login.
  const probe = opts.namespace === undefined ? undefined : await client.get(`/xyz/${opts.namespace}/`, { relogin: false }).catch(() => undefined);
  const sessionProblem = probe?.status === 401 ? `the login of the run answered success, but its credentials are refused (GET /xyz/${opts.namespace}/ answers 401): no session to test with (see EP-1)` : undefined;
  return { client, session: client.exportCookies(), sessionProblem };
}
