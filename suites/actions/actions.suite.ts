/** Actions: DownloadViaTFTP, Reset, POST that would create, and an action the spec does not show. */
import { check, type CheckContext } from '../harness/check.js';
import { describeResponse, ensure, expectError, expectSuccess, notJudged, show } from '../harness/assert.js';
import { children, invalidateTreeCache } from '../harness/tree.js';
import { deleteSoftwareVersions, listedVersions, uploadAndTrack, uploadWaitMs, waitForNewVersions } from '../harness/software.js';
import { judgeSteps, ownVersionWithNeighbour, repeatedCollateral, TreeWatch } from '../harness/tree-effects.js';
import { firstWritePlan, readValue, restoreAfter } from '../harness/writable.js';
import { sameValue } from '../../client/values.js';
import { pollFor } from '../harness/poll.js';

async function software(t: CheckContext): Promise<string[]> {
  return listedVersions(t, `${t.root}/software`);
}

check(
  ['ACT-1', 'EP-10'],
  'DownloadViaTFTP([file, server]) answers ok and registers a software version',
  async (t) => {
    const tftp = t.cfg.tftp!;
    const before = await software(t);
    invalidateTreeCache();
    const path = `${t.root}/software/action/DownloadViaTFTP`;
    const res = await t.client.post(path, [tftp.file, tftp.server]);
    expectSuccess(res, `POST ${path} ${show([tftp.file, tftp.server])}`);
    t.observe('action response data', (res.json as { data?: unknown })?.data, 'RULE-9');
    const added = await waitForNewVersions(t, `${t.root}/software`, before, uploadWaitMs(t));
    deleteSoftwareVersions(t, added);
    ensure(added.length > 0, `no software version appeared under ${t.root}/software after DownloadViaTFTP`);
  },
  {
    profile: 'destructive',
    unless: (cfg) => (cfg.tftp ? undefined : 'needs --tftp-server and --tftp-file naming a valid image'),
  },
);

check(
  ['ACT-2', 'EP-10'],
  'Reset([]) answers ok and the service answers again afterwards',
  async (t) => {
    const path = `${t.root}/software/action/Reset`;
    invalidateTreeCache();
    const res = await t.client.post(path, []);
    expectSuccess(res, `POST ${path} []`);
    // A factory reset may restart the controller: wait until it answers again (re-login is automatic).
    const deadline = Date.now() + t.cfg.timeoutMs;
    for (;;) {
      const probe = await t.client.get(`${t.root}/`).catch((err: Error) => err);
      if (!(probe instanceof Error) && probe.status === 200) break;
      ensure(
        Date.now() < deadline,
        `the service did not answer again after Reset: ${probe instanceof Error ? probe.message : describeResponse(probe)}`,
      );
      await new Promise((r) => setTimeout(r, 1000));
    }
  },
  {
    profile: 'destructive',
    unless: (cfg) => (cfg.allowFactoryReset ? undefined : 'a factory reset runs only with --allow-factory-reset'),
  },
);

check(
  'RULE-4',
  'a POST that would create a resource is refused with 403 and creates nothing',
  async (t) => {
    const targets = [`${t.root}/bmc_conformance_created`, `${t.root}/logging/entry/bmc_conformance_created`];
    for (const path of targets) {
      const res = await t.client.post(path, { Message: 'bmc-conformance probe' });
      expectError(res, `POST ${path}`, 403);
      const after = await t.client.get(path);
      ensure(after.status !== 200, `POST ${path} was refused but ${path} now exists`);
    }
  },
  { profile: 'safe' },
);

/** An object that exists: inventory/system (the spec shows it), else the first top-level child that answers. */
async function existingObject(t: CheckContext): Promise<string> {
  for (const path of [`${t.root}/inventory/system`, ...(await children(t.client, t.root))]) {
    if ((await t.client.get(path)).status === 200) return path;
  }
  return notJudged(`no object under ${t.root} answers GET (see EP-3, OBJ-3)`);
}

/** What a POST to `object` or its routes could have created: its children and its attribute names. */
async function footprint(t: CheckContext, object: string): Promise<{ kids: string[]; names: string[] }> {
  const res = await t.client.get(object);
  const map = res.status === 200 ? (res.json as { data?: unknown } | undefined)?.data : undefined;
  const names = map !== null && typeof map === 'object' && !Array.isArray(map) ? Object.keys(map) : [];
  return { kids: await children(t.client, object), names };
}

check(
  'RULE-4',
  'a POST to an existing object, to its listings and to an attribute it lacks is refused with 403 and creates nothing',
  async (t) => {
    const object = await existingObject(t);
    const attr = `${object}/attr/BmcConformanceCreated`;
    const before = await footprint(t, object);
    const posts: Array<[string, unknown]> = [
      [object, { BmcConformanceCreated: 'bmc-conformance probe' }],
      [`${object}/`, { Message: 'bmc-conformance probe' }],
      [`${object}/list`, { Message: 'bmc-conformance probe' }],
      [`${object}/enumerate`, { Message: 'bmc-conformance probe' }],
      [attr, 'bmc-conformance probe'],
    ];
    invalidateTreeCache();
    for (const [path, data] of posts) {
      const res = await t.client.post(path, data);
      t.judge('RULE-4', res.status === 403, `POST ${path}: expected 403 Forbidden, got ${describeResponse(res)}`);
    }
    const after = await footprint(t, object);
    const newKids = after.kids.filter((k) => !before.kids.includes(k));
    const newNames = after.names.filter((n) => !before.names.includes(n));
    t.judge('RULE-4', newKids.length === 0, `after the POSTs, GET ${object}/ lists new children: ${show(newKids)}`);
    t.judge('RULE-4', newNames.length === 0, `after the POSTs, GET ${object} has new attributes: ${show(newNames)}`);
    const created = await t.client.get(attr);
    t.judge('RULE-4', created.status !== 200, `after POST ${attr}, GET ${attr} answers ${describeResponse(created)}`);
  },
  { profile: 'safe' },
);

check(
  'EP-10',
  'POST {instance}/action/Delete with {"data": []} calls the method: the instance is gone',
  async (t) => {
    const { res, added } = await uploadAndTrack(t, { tag: 'action' });
    if (res.status < 200 || res.status >= 300 || added.length === 0) {
      notJudged(
        `no instance of the run's own to call Delete on: the upload answered ${describeResponse(res)}${added.length === 0 ? ' and registered nothing' : ''} (see EP-12, RULE-7)`,
      );
    }
    const path = added[0]!;
    invalidateTreeCache();
    const call = await t.client.post(`${path}/action/Delete`, []);
    // Which methods a target offers as actions beyond the two shown is left open (rule 8).
    if (call.status === 404 || call.status === 405 || call.status === 403) {
      t.notTested(
        `POST ${path}/action/Delete answered ${describeResponse(call)}: the target does not offer Delete as an action (rule 8 leaves that open)`,
      );
    }
    expectSuccess(call, `POST ${path}/action/Delete []`);
    t.observe('action response data', (call.json as { data?: unknown })?.data, 'RULE-9');
    const after = await t.client.get(path);
    ensure(
      after.status !== 200,
      `POST ${path}/action/Delete answered ${describeResponse(call)} but ${path} still answers ${describeResponse(after)}: the method was not called`,
    );
  },
  { profile: 'destructive' },
);

check(
  ['RULE-8', 'ERR-5', 'EP-10'],
  'record the answer to an action the spec does not show',
  async (t) => {
    const path = `${t.root}/software/action/BmcConformanceNoSuchMethod`;
    const res = await t.client.post(path, []);
    t.judge('ERR-5', res.status < 500, `POST ${path} answered ${describeResponse(res)}: a server error`);
    t.observe('unknown action', { status: res.status, data: (res.json as { data?: unknown })?.data ?? null });
    // "200 ok" claims a method was called: for one the target does not have, that is not true.
    if (res.status >= 200 && res.status < 300)
      t.warn(`POST ${path}, a method the target does not have, answered ${describeResponse(res)} as if it had been called`, 'EP-10');
  },
  { profile: 'safe' },
);

check(
  'ACT-1',
  'DownloadViaTFTP registers its version and changes nothing else in the tree',
  async (t) => {
    const tftp = t.cfg.tftp!;
    const softwareRoot = `${t.root}/software`;
    const path = `${softwareRoot}/action/DownloadViaTFTP`;
    const steps = await repeatedCollateral(async () => {
      // A version of the run's own already there: the download must leave the others as they are.
      await uploadAndTrack(t, { tag: 'tftp-neighbour' });
      const before = await software(t);
      const watch = await TreeWatch.start(t);
      const res = await t.client.post(path, [tftp.file, tftp.server]);
      // The answer and the registration are the other ACT-1 check's concern; here what else changed.
      if (res.status < 200 || res.status >= 300) notJudged(`POST ${path} answered ${describeResponse(res)}: nothing to watch`);
      const added = await waitForNewVersions(t, softwareRoot, before, uploadWaitMs(t));
      deleteSoftwareVersions(t, added);
      const found = await watch.collateral({ added: { under: softwareRoot, max: 1 } }, softwareRoot);
      // Its version deleted, so that a second run downloads the same file anew.
      for (const version of added) await t.client.delete(version);
      invalidateTreeCache();
      return [{ command: `POST ${path} ${show([tftp.file, tftp.server])}`, found }];
    });
    judgeSteps(t, 'ACT-1', steps);
  },
  {
    profile: 'destructive',
    unless: (cfg) => (cfg.tftp ? undefined : 'needs --tftp-server and --tftp-file naming a valid image'),
  },
);

check(
  'EP-10',
  'POST {instance}/action/Delete removes the instance and nothing else in the tree',
  async (t) => {
    const software = `${t.root}/software`;
    const steps = await repeatedCollateral(async () => {
      const path = await ownVersionWithNeighbour(t, 'action-effects');
      if (path === undefined) notJudged('no instance of the run to call Delete on: the uploads registered no version (see RULE-7)');
      const watch = await TreeWatch.start(t);
      const call = await t.client.post(`${path}/action/Delete`, []);
      // Whether a target offers Delete as an action is left open (rule 8); the answer is the other check's.
      if (call.status < 200 || call.status >= 300)
        t.notTested(`POST ${path}/action/Delete answered ${describeResponse(call)}: nothing to watch`);
      return [{ command: `POST ${path}/action/Delete []`, found: await watch.collateral({ removed: [path] }, software) }];
    });
    judgeSteps(t, 'EP-10', steps);
  },
  { profile: 'destructive' },
);

/** Polls until `done` holds or `ms` have passed; errors of a restarting service count as not yet. */
function pollUntil(ms: number, done: () => Promise<boolean>): Promise<boolean> {
  return pollFor(
    () => done().catch(() => false),
    (held) => held,
    ms,
    500,
  );
}

check(
  'ACT-2',
  'Reset([]) is judged by its effect: a value the run wrote and a version it uploaded do not survive it',
  async (t) => {
    // A value only the run can have made ("…-bmcc"): no factory default can equal it.
    const plan = await firstWritePlan(
      t,
      (p) => typeof p.next === 'string' && p.next.endsWith('-bmcc'),
      "no named writable takes a string of the run's own making, which no factory value can equal",
    );
    restoreAfter(t, plan);
    const { path, name } = plan.attr;
    invalidateTreeCache();
    const put = await t.client.put(`${path}/attr/${name}`, plan.next);
    if (put.status < 200 || put.status >= 300 || !sameValue(await readValue(t, path, name), plan.next)) {
      notJudged(
        `PUT ${path}/attr/${name} = ${show(plan.next)} did not take (${describeResponse(put)}): nothing for Reset to undo (see EP-8)`,
      );
    }
    const { added } = await uploadAndTrack(t, { tag: 'reset' });
    if (added.length === 0) notJudged('the upload registered no version: nothing for Reset to remove (see RULE-7)');
    const version = added[0]!;
    const reset = `${t.root}/software/action/Reset`;
    invalidateTreeCache();
    const res = await t.client.post(reset, []);
    // The answer is the other ACT-2 check's concern; here what the reset did.
    if (res.status < 200 || res.status >= 300) notJudged(`POST ${reset} answered ${describeResponse(res)}: no reset to judge`);
    // The spec does not say when a factory reset takes effect: a bounded wait.
    const bound = t.cfg.embedded ? t.cfg.eventTimeoutMs : Math.max(t.cfg.timeoutMs, t.cfg.eventTimeoutMs);
    const valueGone = () => pollUntil(bound, async () => !sameValue(await readValue(t, path, name), plan.next));
    const versionGone = () => pollUntil(bound, async () => (await t.client.get(version)).status !== 200);
    const [value, removed] = await Promise.all([valueGone(), versionGone()]);
    t.judge(
      'ACT-2',
      value,
      `POST ${reset} answered ${describeResponse(res)} but ${path} ${name} still holds ${show(plan.next)}, which the run wrote before it`,
    );
    t.judge(
      'ACT-2',
      removed,
      `POST ${reset} answered ${describeResponse(res)} but ${version}, which the run uploaded before it, is still there`,
    );
  },
  {
    profile: 'destructive',
    unless: (cfg) => (cfg.allowFactoryReset ? undefined : 'a factory reset runs only with --allow-factory-reset'),
  },
);
