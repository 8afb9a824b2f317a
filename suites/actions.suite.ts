/** Actions: DownloadViaTFTP, Reset, POST that would create, and an action the spec does not show. */
import { check, type CheckContext } from './support/check.js';
import { describeResponse, ensure, expectError, expectSuccess, notJudged, show } from './support/assert.js';
import { children, invalidateTreeCache } from './support/tree.js';
import { deleteSoftwareVersions, uploadAndTrack, uploadWaitMs, waitForNewChildren } from './support/software.js';

async function software(t: CheckContext): Promise<string[]> {
  return children(t.client, `${t.root}/software`);
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
    const added = await waitForNewChildren(t, `${t.root}/software`, before, uploadWaitMs(t));
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
