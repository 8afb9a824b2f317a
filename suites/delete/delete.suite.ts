/** DELETE: instances with xyz.{ns}.Object.Delete go away; others are refused with 403. */
import { check, type CheckContext } from '../harness/check.js';
import { describeResponse, ensure, expectError, expectSuccess, notJudged } from '../harness/assert.js';
import { children, getObject, invalidateTreeCache } from '../harness/tree.js';
import { uploadAndTrack } from '../harness/software.js';
import { judgeSteps, ownVersionWithNeighbour, repeatedCollateral, TreeWatch } from '../harness/tree-effects.js';

/** A deletable instance this run created itself: an uploaded software version. */
async function ownDeletableInstance(t: CheckContext): Promise<string> {
  const { res, added } = await uploadAndTrack(t, { tag: 'delete' });
  if (res.status !== 200) t.notTested(`no instance to delete: uploading one answered ${describeResponse(res)}`);
  if (added.length === 0) t.notTested('no instance to delete: the uploaded image registered no version');
  return added[0]!;
}

check(
  'EP-11',
  'DELETE of an instance with the Delete interface removes it',
  async (t) => {
    const path = await ownDeletableInstance(t);
    invalidateTreeCache();
    const res = await t.client.delete(path);
    expectSuccess(res, `DELETE ${path}`);
    t.observe('DELETE response data', (res.json as { data?: unknown })?.data, 'RULE-9');
    const after = await t.client.get(path);
    ensure(after.status !== 200, `GET ${path} after its DELETE answered ${describeResponse(after)}`);
    const listed = await children(t.client, `${t.root}/software`);
    ensure(!listed.includes(path), `${path} is still listed under ${t.root}/software after its DELETE`);
  },
  { profile: 'destructive' },
);

check(
  'RULE-5',
  'DELETE of an object without the Delete interface is refused with 403 and the object stays',
  async (t) => {
    for (const rel of ['inventory/system', 'time/owner']) {
      const path = `${t.root}/${rel}`;
      const before = await getObject(t.client, path);
      invalidateTreeCache();
      expectError(await t.client.delete(path), `DELETE ${path}`, 403);
      const after = await t.client.get(path);
      ensure(after.status === 200, `${path} is gone after a refused DELETE: ${describeResponse(after)}`);
      ensure(
        Object.keys(before).length === Object.keys((after.json as { data: object }).data ?? {}).length,
        `${path} lost attributes after a refused DELETE`,
      );
    }
  },
  { profile: 'safe' },
);

check(
  'EP-11',
  'DELETE of an instance removes it and nothing else in the tree',
  async (t) => {
    const software = `${t.root}/software`;
    const steps = await repeatedCollateral(async () => {
      // Two instances of the run's own: the one deleted has a neighbour listed after it.
      const path = await ownVersionWithNeighbour(t, 'delete-effects');
      if (path === undefined) notJudged('no instance of the run to delete: the uploads registered no version (see RULE-7)');
      const watch = await TreeWatch.start(t);
      const res = await t.client.delete(path);
      // The answer is the other EP-11 check's concern; here only what a taken DELETE did around it.
      if (res.status < 200 || res.status >= 300) notJudged(`DELETE ${path} answered ${describeResponse(res)}: nothing to watch`);
      return [{ command: `DELETE ${path}`, found: await watch.collateral({ removed: [path] }, software) }];
    });
    judgeSteps(t, 'EP-11', steps);
  },
  { profile: 'destructive' },
);
