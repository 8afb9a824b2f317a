/**
 * Stateful checking: command sequences generated from the model of the target (its writables,
 * versions, sessions and subscriptions), each followed by a comparison of every view and channel
 * with the model. A finding is shrunk to the shortest sequence that shows it and reported with its
 * steps as curl lines and a replay key:
 *
 *   <what broke> — after N step(s): 1. …; 2. … — replay: --seed <S> BMC_FUZZ_PATH=<key>[/<REQ>]:<path>
 *
 * Replaying that sequence: the same command (target, --profile, --writable, --fault) with
 * `--only stateful --seed <S>` and BMC_FUZZ_PATH. Keys: stateful-values, stateful-versions, stateful-credentials.
 * Everything a sequence changes is put back at its end: written attributes, uploaded versions,
 * subscriptions and the sessions it logged in.
 */
import { check, runConfig } from '../harness/check.js';
import { profileAllows } from '../../runner/config.js';
import { noWritableReason } from '../harness/writable.js';
import { declaredWritables, discoverViews } from './discovery.js';
import { CREDENTIAL_REQUIREMENTS, VALUE_REQUIREMENTS, VERSION_REQUIREMENTS } from '../../catalogue/requirements.js';
import { sessionsProperty, MAX_SESSION_COMMANDS } from './sessions-commands.js';
import { discoverSessions } from './sessions.js';
import { TAKEN_BREAKS, type Channel } from './credentials.js';
import { runStateful, statefulCheckTimeoutMs } from './stateful-check.js';
import { statefulEnv } from './world.js';
import { MAX_VALUE_COMMANDS, MAX_VERSION_COMMANDS, requestsPerRun, valuesProperty, versionsProperty } from './views-commands.js';

const cfg = runConfig();

/** The model's discovery, shared by the two checks that change the tree (read once per run). */
let discovery: ReturnType<typeof discoverViews> | undefined;

check(
  VALUE_REQUIREMENTS,
  "a PUT of an attribute or of its whole object shows the same on GET, attr, the listings, list and enumerate up to the namespace root and every subscriber, with the property's interface",
  async (t) => {
    const env = statefulEnv(t);
    const d = await (discovery ??= discoverViews(env));
    if (!d) return t.notTested(noWritableReason());
    if (!d.events) t.observe('events not judged', d.eventsWhyNot, 'EV-8');
    t.observe(
      'interfaces learned from attribute PUTs',
      Object.fromEntries(d.writables.map((w) => [`${w.attr.path} ${w.attr.name}`, w.iface ?? null])),
      'EV-2',
    );
    await runStateful(t, env, valuesProperty(env, d));
  },
  { profile: 'safe', timeoutMs: statefulCheckTimeoutMs(cfg, requestsPerRun(MAX_VALUE_COMMANDS)) },
);

check(
  VERSION_REQUIREMENTS,
  'an upload, a re-upload and a DELETE answer and show the same on GET, the listing, list, enumerate and every subscriber',
  async (t) => {
    const env = statefulEnv(t);
    const d = await (discovery ??= discoverViews(env));
    if (!d) return t.notTested(`the subscriptions that watch uploads are proved live by writes: ${noWritableReason()}`);
    await runStateful(t, env, versionsProperty(env, d));
  },
  { profile: 'destructive', timeoutMs: statefulCheckTimeoutMs(cfg, requestsPerRun(MAX_VERSION_COMMANDS)) },
);

check(
  CREDENTIAL_REQUIREMENTS,
  "a logged-out, another session's, tampered or client-chosen cookie is refused on HTTP, upload and WebSocket",
  async (t) => {
    const env = statefulEnv(t);
    const writable = profileAllows(t.cfg.profile, 'safe') ? (await declaredWritables(env))[0] : undefined;
    const d = await discoverSessions(env, writable);
    for (const [channel, reason] of Object.entries(d.anonymous)) t.judge(TAKEN_BREAKS[channel as Channel], false, reason);
    if (Object.keys(d.unjudgedChannels).length > 0) t.observe('channels not judged', d.unjudgedChannels);
    if (d.unwatchable) t.observe("whether a logged-out session's socket goes quiet is not judged", d.unwatchable, 'EP-2');
    await runStateful(t, env, sessionsProperty(env, d));
  },
  { timeoutMs: statefulCheckTimeoutMs(cfg, MAX_SESSION_COMMANDS * 10) },
);
