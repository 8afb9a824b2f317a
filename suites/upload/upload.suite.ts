/** Image upload: POST and PUT with a remote name, registration, failed and duplicate uploads. */
import { buildImage, corruptImage, imageWithoutManifest } from '../../client/image.js';
import { isSuccess, type BmcResponse } from '../../client/http.js';
import { check, type CheckContext } from '../harness/check.js';
import { okData } from '../../client/answer.js';
import { isMap } from '../../client/values.js';
import { descriptionOf, ensure, expectError, expectOk, expectSuccess, notJudged, show } from '../harness/assert.js';
import { children, invalidateTreeCache } from '../harness/tree.js';
import { FRESH_PREFIX, freshVersion, listedVersions, uploadAndTrack, uploadOwn } from '../harness/software.js';
import { judgeSteps, repeatedCollateral, TreeWatch } from '../harness/tree-effects.js';

function expectVersionId(res: BmcResponse, what: string, requirement: string): string {
  const data = expectOk(res, what, requirement);
  ensure(typeof data === 'string' && data.length > 0, `${what}: data is ${show(data)}, expected the version id string`, requirement);
  return data;
}

/** 400 with a description saying why; an error without any description is ERR-1's failure. */
function expectDescription(res: BmcResponse, what: string): void {
  expectError(res, what, 400);
  const description = descriptionOf(res);
  if (typeof description !== 'string') notJudged(`${what}: the 400 answer carries no description to read (see ERR-1)`);
  ensure(
    /already exists|extract/i.test(description),
    `${what}: the description ${show(description)} does not say the version exists or failed to be extracted`,
  );
}

check(
  ['EP-12', 'RULE-7'],
  'POST /upload/image answers with the version id and registers the version',
  async (t) => {
    const { res, added } = await uploadAndTrack(t);
    const id = expectVersionId(res, 'POST /upload/image', 'EP-12');
    ensure(added.length > 0, `no software version appeared under ${t.root}/software after the upload of ${id}`, 'RULE-7');
    t.observe(
      'version object path names the id',
      added.some((p) => p.endsWith(`/${id}`)),
      'VER-1',
    );
  },
  { profile: 'destructive' },
);

check(
  ['EP-13', 'RULE-7'],
  'PUT /upload/image/{remote_name} answers with the version id and registers the version',
  async (t) => {
    const { res, added } = await uploadAndTrack(t, { remoteName: `bmc-conformance-${Date.now()}.tar` });
    const id = expectVersionId(res, 'PUT /upload/image/{remote_name}', 'EP-13');
    ensure(added.length > 0, `no software version appeared under ${t.root}/software after the upload of ${id}`, 'RULE-7');
  },
  { profile: 'destructive' },
);

check(
  'ERR-2',
  'an image that fails extraction answers 400 saying so',
  async (t) => {
    for (const [what, image] of [
      ['a body that is not a tar archive', corruptImage()],
      ['a tar archive without a MANIFEST', await imageWithoutManifest()],
    ] as const) {
      const before = await children(t.client, `${t.root}/software`);
      invalidateTreeCache();
      const res = await uploadOwn(t, image);
      expectDescription(res, `POST /upload/image with ${what}`);
      const after = await children(t.client, `${t.root}/software`);
      ensure(after.length <= before.length, `the failed upload of ${what} registered a version`);
    }
  },
  { profile: 'destructive' },
);

check(
  'ERR-3',
  'an upload of a version that already exists answers 400 saying so',
  async (t) => {
    const version = freshVersion('duplicate');
    const image = await buildImage({ version, namespace: t.ns });
    const { res: first, added } = await uploadAndTrack(t, { image: { image, version } });
    // The first upload registering its version is EP-12's and RULE-7's concern; only then is the
    // second one a duplicate.
    expectSuccess(first, 'the first POST /upload/image', 'EP-12');
    if (added.length === 0) notJudged('the first upload registered no version, so the second is no duplicate (see RULE-7)');
    const second = await uploadOwn(t, image);
    expectDescription(second, 'the second POST /upload/image of the same version');
  },
  { profile: 'destructive' },
);

/**
 * The versions the target held before the run, the active one first: those under software/ whose
 * Version is no version the run makes (freshVersion). State that existed before the run is input.
 */
async function heldVersions(t: CheckContext, software: string): Promise<Array<{ path: string; version: string }>> {
  const held: Array<{ path: string; version: string; active: boolean }> = [];
  for (const path of await listedVersions(t, software)) {
    const map = okData(await t.client.get(path));
    if (!isMap(map) || typeof map.Version !== 'string' || map.Version.startsWith(FRESH_PREFIX)) continue;
    held.push({ path, version: map.Version, active: typeof map.Activation === 'string' && map.Activation.endsWith('.Active') });
  }
  return held.sort((a, b) => Number(b.active) - Number(a.active));
}

check(
  'ERR-3',
  'an upload of a version the target held before the run (the active one first) answers 400 saying so, and registers nothing',
  async (t) => {
    const software = `${t.root}/software`;
    const held =
      (await heldVersions(t, software))[0] ?? t.notTested(`the target lists no version of its own under ${software}/ to upload again`);
    const image = await buildImage({ version: held.version, namespace: t.ns });
    // Only a version that newly appears is the run's, and deleted after: the one held stays as it is.
    const { res, added } = await uploadAndTrack(t, { image: { image, version: held.version } });
    expectDescription(res, `POST /upload/image of ${show(held.version)}, the version ${held.path} holds`);
    ensure(added.length === 0, `the upload of ${show(held.version)}, which ${held.path} holds already, registered ${added.join(', ')}`);
  },
  { profile: 'destructive' },
);

check(
  'RULE-7',
  'an upload registers its version and changes nothing else in the tree',
  async (t) => {
    const software = `${t.root}/software`;
    const steps = await repeatedCollateral(async () => {
      // A version of the run's own already there: an upload must leave the others as they are.
      await uploadAndTrack(t, { tag: 'effects-first' });
      const watch = await TreeWatch.start(t);
      const { res, added } = await uploadAndTrack(t, { tag: 'effects' });
      // The answer and the registration are the other checks' concern; here what else changed.
      if (!isSuccess(res) || added.length === 0)
        notJudged(`the upload answered ${res.status} and registered ${added.length} version(s): nothing to watch`);
      return [{ command: 'POST /upload/image', found: await watch.collateral({ added: { under: software, max: 1 } }, software) }];
    });
    judgeSteps(t, 'RULE-7', steps);
  },
  { profile: 'destructive' },
);
