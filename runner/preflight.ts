/**
 * Before any suite runs: reach the target (TLS included), log in once (the spec's body, then the
 * field's {"username", "password"} with a warning), wait until it is ready, and take its
 * fingerprint. Every environment problem (unreachable, TLS, wrong password, timeout, never ready)
 * becomes one plain sentence within seconds.
 */
import { okData } from '../client/answer.js';
import type { EvidenceLog } from '../client/evidence.js';
import type { SessionLedger } from '../client/session-ledger.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { connect as tlsConnect } from 'node:tls';
import { isIP } from 'node:net';
import { BmcClient, type BmcResponse, type SerializedCookies } from '../client/http.js';
import { LoginRefusedError, messageOf } from '../client/errors.js';
import type { Fingerprint } from '../client/results.js';
import { UsageError } from '../client/usage-error.js';
import { httpsFormOf } from '../client/target-url.js';

export interface PreflightResult {
  client: BmcClient;
  session: SerializedCookies;
  /** The login answered success, but its credentials are refused: what the checks meet instead. */
  sessionProblem?: string;
  fingerprint: Fingerprint;
  /** Things worth a line before the run: the login needed the field's body. */
  warnings: string[];
}

/** Logging in should be quick even on a slow BMC; enumerations get the long timeout. */
const LOGIN_WITHIN_MS = 60_000;

export async function preflight(opts: {
  target: string;
  user: string;
  password: string;
  insecure: boolean;
  timeoutMs: number;
  /** Where to probe that the session works; without it, no probe. */
  namespace?: string;
  /** The target profile file that gave the namespace (a 404 there is the profile's to correct). */
  namespaceFrom?: string;
  /** How long a target answering 503 (still starting) is waited for (default 60 s). */
  readyWithinMs?: number;
  /** Where the client records its exchanges (a replay shows its own). */
  evidence?: EvidenceLog;
  /** The run's pace and pool (--rps, the target profile): its own reads keep to them as the suites do. */
  maxRequestsPerSecond?: number;
  connections?: number;
  /** Where the run counts the sessions of its own clients. */
  sessions?: SessionLedger;
}): Promise<PreflightResult> {
  if (!/^https?:\/\/[^/]+/.test(opts.target)) {
    // Credentials written into what is not a URL were not taken out of it (client/target-url.ts): never shown.
    const userinfo = /^([a-z][a-z0-9+.-]*:\/\/+)?[^/@]*@/i;
    const shown = opts.target.replace(userinfo, '$1…@');
    const meant = httpsFormOf(opts.target.replace(userinfo, '$1'));
    throw new UsageError(`The target "${shown}" is not an https URL; did you mean ${meant}?`);
  }
  const client = new BmcClient({
    baseUrl: opts.target,
    user: opts.user,
    password: opts.password,
    insecure: opts.insecure,
    timeoutMs: opts.timeoutMs,
    connectTimeoutMs: 10_000,
    maxRequestsPerSecond: opts.maxRequestsPerSecond,
    connections: opts.connections,
    ...(opts.evidence && { evidence: opts.evidence }),
    ...(opts.sessions && { sessions: opts.sessions }),
  });
  const warnings: string[] = [];
  try {
    const login = client.login();
    const late = sleep(Math.min(opts.timeoutMs, LOGIN_WITHIN_MS), 'late' as const, { ref: false });
    if ((await Promise.race([login, late])) === 'late') {
      login.catch(() => undefined);
      throw new UsageError(`The target did not answer the login within ${Math.round(Math.min(opts.timeoutMs, LOGIN_WITHIN_MS) / 1000)} s.`);
    }
  } catch (err) {
    await client.close();
    if (err instanceof UsageError) throw err;
    if (err instanceof LoginRefusedError)
      throw new UsageError(`${err.message.replace(/\.$/, '')}: check --user and --password (or BMC_USER and BMC_PASSWORD).`);
    // A plain http:// URL at a TLS port only sees the connection close: say what the port speaks.
    const plain = opts.target.startsWith('http://');
    if (plain && (await speaksTls(opts.target)))
      throw new UsageError(`The target ${opts.target} answers with TLS, not plain HTTP: use ${httpsFormOf(opts.target)}.`);
    // The interface is served over HTTPS: a plain http:// URL that does not answer was most likely meant as one.
    if (plain)
      throw new UsageError(`${messageOf(err).replace(/\.$/, '')}; the interface is HTTPS: did you mean ${httpsFormOf(opts.target)}?`);
    throw new UsageError(messageOf(err));
  }
  if (client.loginForm === 'username-password') {
    warnings.push(
      'the target refused the spec\'s login body {"data": [user, password]} and took {"username", "password"}: the run goes on with that session (EP-1 judges the spec\'s form)',
    );
  }
  if (opts.namespace === undefined)
    return { client, session: client.exportCookies(), fingerprint: { loginForm: client.loginForm }, warnings };
  const probe = await ready(client, `/xyz/${opts.namespace}/`, opts.readyWithinMs ?? 60_000);
  if (probe?.status === 404) {
    const message = await wrongNamespace(client, opts.namespace, opts.namespaceFrom);
    await client.close();
    throw new UsageError(message);
  }
  // A login that "succeeds" without credentials that work leaves nothing to test but the login.
  const sessionProblem =
    probe?.status === 401
      ? `the login of the run answered success, but its credentials are refused (GET /xyz/${opts.namespace}/ answers 401): no session to test with (see EP-1)`
      : undefined;
  const fingerprint = sessionProblem ? { loginForm: client.loginForm } : await fingerprintOf(client, opts.namespace, probe);
  return { client, session: client.exportCookies(), sessionProblem, fingerprint, warnings };
}

/**
 * The namespace root is not there: most likely the user's --namespace, not the target, is wrong.
 * Names the namespaces /xyz/ lists, when it lists any.
 */
async function wrongNamespace(client: BmcClient, ns: string, profile: string | undefined): Promise<string> {
  const listed = okData(await client.get('/xyz/', { relogin: false }).catch(() => undefined));
  const names = (Array.isArray(listed) ? listed : [])
    .filter((p): p is string => typeof p === 'string' && /^\/xyz\/[^/]+$/.test(p))
    .map((p) => p.slice('/xyz/'.length));
  const hint = names.length > 0 ? `; the target lists ${names.join(', ')} under /xyz/` : '';
  if (profile !== undefined)
    return `The namespace "${ns}" from ${profile} answers 404 Not Found at /xyz/${ns}/${hint}: check the profile's namespace or pass --namespace.`;
  return `The namespace root /xyz/${ns}/ answers 404 Not Found${hint}: check --namespace (or BMC_NAMESPACE).`;
}

/** The first answer that is not 503 (a BMC still starting says so), within `withinMs`. */
async function ready(client: BmcClient, path: string, withinMs: number): Promise<BmcResponse | undefined> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const res = await client.get(path, { relogin: false, max503Retries: 0 }).catch(() => undefined);
    if (res && res.status !== 503) return res;
    if (Date.now() >= deadline) {
      await client.close();
      throw new UsageError(
        `The target is not ready: GET ${path} ${res ? 'answered 503' : 'got no answer'} for ${Math.round(withinMs / 1000)} s.`,
      );
    }
    await sleep(Math.min(2_000, Math.max(0, deadline - Date.now())));
  }
}

/**
 * How the target names itself (Server header), the firmware it runs (the active BMC version under
 * software/, when it shows one) and how many objects its namespace lists.
 */
async function fingerprintOf(client: BmcClient, ns: string, probe: BmcResponse | undefined): Promise<Fingerprint> {
  const header = (name: string) => {
    const v = probe?.headers[name];
    return Array.isArray(v) ? v[0] : v;
  };
  const listed = okData(await client.get(`/xyz/${ns}/list`).catch(() => undefined));
  const versions = okData(await client.get(`/xyz/${ns}/software/`).catch(() => undefined));
  let firmware: string | undefined;
  for (const path of (Array.isArray(versions) ? versions : []).filter((p): p is string => typeof p === 'string').slice(0, 8)) {
    const v = okData(await client.get(path).catch(() => undefined)) as Record<string, unknown> | undefined;
    if (v && /\.BMC$/.test(String(v.Purpose)) && /\.Active$/.test(String(v.Activation)) && typeof v.Version === 'string') {
      firmware = v.Version;
      break;
    }
  }
  return {
    server: header('server') ?? header('x-powered-by'),
    firmware,
    objects: Array.isArray(listed) ? listed.length : undefined,
    loginForm: client.loginForm,
  };
}

/**
 * Whether the port of an http:// target completes a TLS handshake (within 3 s). Without a port,
 * http:// means 80 and https:// 443: the TLS port is the one tried.
 */
function speaksTls(target: string): Promise<boolean> {
  const url = new URL(target);
  const port = Number(url.port || 443);
  return new Promise((resolve) => {
    const socket = tlsConnect({
      host: url.hostname,
      port,
      rejectUnauthorized: false,
      servername: isIP(url.hostname) ? undefined : url.hostname,
    });
    const done = (answer: boolean): void => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(3_000, () => done(false));
    socket.once('secureConnect', () => done(true));
    socket.once('error', () => done(false));
  });
}
