/**
 * Fuzzing: property-based checks with requests generated from the discovered tree and mutated in
 * hostile ways (see suites/support/fuzz/). Each property runs `--fuzz-runs` cases from a seed
 * derived from `--seed` and its key; a failure is shrunk to a minimal case and reported on the
 * first line of the reason as
 *
 *   <what broke> — curl … (one line; $COOKIE = the session cookie, $PASSWORD = the password)
 *                — replay: --seed <S> BMC_FUZZ_PATH=<key>:<path>
 *
 * Replaying that exact case: the same command (target, --only/areas, --fault, --profile) plus
 *
 *   BMC_FUZZ_PATH=<key>:<path> node dist/cli/main.js run … --seed <S> [--requirements <ID>]
 *
 * Keys: env, auth1, auth4, err5, wr1, stable; several as `key:path,key:path`. The arbitraries are
 * built from the tree the target shows, so the tree must be the same as in the failing run (on the
 * simulator: the same areas, since earlier areas upload and delete objects).
 *
 * On hardware, failed logins naming the configured user are capped at 5 per run (accounts may lock);
 * BMC_FUZZ_LOGIN_FAILURES=<n> changes the cap.
 */
import { runConfig, check } from '../harness/check.js';
import { ensure } from '../harness/assert.js';
import { anonymousProperty } from './properties/anonymous.js';
import { envelopeProperty } from './properties/envelope.js';
import { loginProperty } from './properties/login.js';
import { serverErrorProperty } from './properties/server-error.js';
import { STABILITY_REQUIREMENTS } from '../../catalogue/requirements.js';
import { stabilityProperty } from './properties/stability.js';
import { writeBoundaryPlan, writeProperty, writeTargets } from './properties/write.js';
import { fuzzCheckTimeoutMs, fuzzEnv, observePlanPart, restoreWritablesAfter, runChecked } from './fuzz-check.js';
import { boundariesOf, type FuzzEnv } from './properties/common.js';
import { pathBoundaryPlan } from './path-boundaries.js';
import { boundaryLoginCases, USER_BOUNDARIES } from './login.js';
import type { FuzzReport } from './runner.js';
import type { CheckContext } from '../harness/check.js';
import { digestOf, PLAN_OBSERVATIONS } from '../../client/plan.js';
import { stringifyJson } from '../../client/json.js';
import { profileAllows } from '../../runner/config.js';

const cfg = runConfig();
const budget = (requestsPerRun: number) => ({ timeoutMs: fuzzCheckTimeoutMs(cfg, requestsPerRun) });

/** The path boundaries' part of the plan, as far as a property that sends them first got. */
function observePathBoundaries(t: CheckContext, env: FuzzEnv, reports: ReadonlyArray<FuzzReport<unknown>>): void {
  const plan = pathBoundaryPlan(env.model);
  const examples = boundariesOf(env);
  observePlanPart(t, PLAN_OBSERVATIONS.paths, reports, {
    first: examples.findIndex((r) => r.family === plan.requests[0]?.family && r.path === plan.requests[0]?.path),
    cases: plan.requests.length,
    digest: plan.digest,
    detail: `${plan.routes} routes × ${plan.boundaries} on ${plan.object}`,
    examples: examples.length,
  });
}

check(
  ['ENV-1', 'ENV-2', 'ENV-3', 'ENV-4'],
  'every answer to a generated request is a correct envelope, or a refusal with no envelope at all',
  async (t) => {
    if (profileAllows(t.cfg.profile, 'safe')) await restoreWritablesAfter(t);
    const env = await fuzzEnv(t);
    observePathBoundaries(t, env, await runChecked(t, env, envelopeProperty(env)));
  },
  budget(1),
);

check(
  ['AUTH-1', 'AUTH-5'],
  'no generated request without credentials is answered with success or object data',
  async (t) => {
    if (profileAllows(t.cfg.profile, 'safe')) await restoreWritablesAfter(t);
    const env = await fuzzEnv(t);
    await runChecked(t, env, anonymousProperty(env));
  },
  budget(1),
);

check(
  'AUTH-4',
  'no generated login body (wrong arity, types, near-miss users and passwords) opens a session',
  async (t) => {
    const env = await fuzzEnv(t);
    const loginClient = t.client.fork();
    t.cleanup(() => loginClient.close());
    const reports = await runChecked(t, env, loginProperty(env, loginClient));
    const cases = boundaryLoginCases(env.who);
    observePlanPart(t, PLAN_OBSERVATIONS.login, reports, {
      first: 0,
      cases: cases.length,
      digest: digestOf(cases.map((c) => stringifyJson(c))),
      detail: `${USER_BOUNDARIES.length} user names × 3 body forms, 1 password`,
      examples: cases.length,
    });
    t.observe('failed logins naming the user not sent so far (lockout guard)', env.loginFailures.skipped);
  },
  budget(1.2),
);

check(
  ['ERR-5', 'WR-1', 'EP-8'],
  'no generated request yields a 5xx or a dropped connection, and the target still answers afterwards',
  async (t) => {
    if (profileAllows(t.cfg.profile, 'safe')) await restoreWritablesAfter(t);
    const env = await fuzzEnv(t);
    observePathBoundaries(t, env, await runChecked(t, env, serverErrorProperty(env)));
    const after = await t.client.get(env.knownGood);
    ensure(after.status === 200, `GET ${env.knownGood} answers ${after.status} after fuzzing`, 'ERR-5');
  },
  budget(1),
);

check(
  ['WR-1', 'EP-8', 'ERR-5'],
  'a PUT of a wrongly typed value is refused and changes nothing; an accepted PUT reads back equal',
  async (t) => {
    await restoreWritablesAfter(t);
    const env = await fuzzEnv(t);
    const targets = await writeTargets(env);
    if (targets.length === 0) t.notTested('no declared writable attribute answers (use --writable PATH:ATTR[=V1|V2])');
    t.observe(
      'write targets',
      targets.map((w) => `${w.attr.path}/attr/${w.attr.name} (${w.kind})`),
    );
    const reports = await runChecked(t, env, writeProperty(env, targets));
    const plan = writeBoundaryPlan(targets);
    observePlanPart(t, PLAN_OBSERVATIONS.writes, reports, {
      first: 0,
      cases: plan.cases,
      digest: plan.digest,
      detail: `${plan.writables} writable${plan.writables === 1 ? '' : 's'}`,
      examples: plan.cases,
    });
    // The spec leaves open what a body that is not {"data": …} JSON gets; refusing it is better.
    if (env.acceptedMalformed.length > 0) t.observe('writes accepted with a malformed body', env.acceptedMalformed, 'ERR-6');
  },
  { profile: 'safe', ...budget(3) },
);

// Last: the reads are checked on the tree as the fuzzing above left it, with time having passed.
check(
  STABILITY_REQUIREMENTS,
  'fuzzed reads are stable: attr/{name}, list and enumerate agree with the objects and listings',
  async (t) => {
    const env = await fuzzEnv(t);
    await runChecked(t, env, stabilityProperty(env));
  },
  budget(3),
);
