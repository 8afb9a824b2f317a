/**
 * junit.xml of a fleet folder: one test suite per target, one test case per requirement (as a
 * target's own junit.xml), so a CI dashboard shows each machine as a suite. A target without
 * verdicts is a suite with one errored case that says why.
 */
import xmlbuilder from 'xmlbuilder';
import type { Verdict } from '../../client/results.js';
import type { FleetChange, FleetMatrix, FleetTarget } from './matrix.js';
import { requirementIds } from './matrix.js';
import { titleOf } from './md.js';

type XMLElement = xmlbuilder.XMLElement;

const skipped = (v: Verdict | undefined): boolean => v === 'NOT_TESTED' || v === 'XFAIL';

export function fleetJunit(m: FleetMatrix): string {
  const ids = requirementIds(m);
  const all = m.targets.flatMap((t) => (t.verdicts ? ids.map((id) => t.verdicts![id]) : [undefined]));
  const root = xmlbuilder.create('testsuites', { version: '1.0', encoding: 'UTF-8' }, {}, { invalidCharReplacement: '\uFFFD' }).att({
    name: `${m.tool.name} fleet`,
    tests: all.length,
    failures: all.filter((v) => v === 'FAIL').length,
    errors: m.targets.filter((t) => !t.verdicts).length,
    skipped: all.filter(skipped).length,
    time: (m.durationMs / 1000).toFixed(3),
  });
  const changes = new Map((m.changes?.changes ?? []).map((c) => [`${c.target}\u0000${c.id}`, c]));
  for (const t of m.targets) suite(root, t, ids, m.startedAt, (id) => changes.get(`${t.name}\u0000${id}`));
  return `${root.end({ pretty: true })}\n`;
}

function suite(root: XMLElement, t: FleetTarget, ids: string[], startedAt: string, change: (id: string) => FleetChange | undefined): void {
  const verdicts = t.verdicts;
  const rows = verdicts ? ids.filter((id) => verdicts[id] !== undefined) : [];
  const el = root.ele('testsuite', {
    name: t.name,
    tests: verdicts ? rows.length : 1,
    failures: rows.filter((id) => verdicts![id] === 'FAIL').length,
    errors: verdicts ? 0 : 1,
    skipped: rows.filter((id) => skipped(verdicts![id])).length,
    time: (t.durationMs / 1000).toFixed(3),
    timestamp: (t.startedAt ?? startedAt).replace(/\.\d+Z$|Z$/, ''),
  });
  const props = el.ele('properties');
  const entries: Array<[string, string | number | null | undefined]> = [
    ['target', t.url],
    ['platform', t.platform],
    ['status', t.status],
    ['exit code', t.exitCode],
    ['left behind', t.trace],
  ];
  for (const [name, value] of entries) if (value !== undefined && value !== null) props.ele('property', { name, value: String(value) });
  if (!verdicts) {
    el.ele('testcase', { classname: `bmc-conformance.${t.name}`, name: 'run' }).ele('error', {
      message: `${t.status}: ${t.message ?? 'no verdicts'}`,
      type: t.status,
    });
    return;
  }
  for (const id of rows) {
    const v = verdicts[id]!;
    const reason = t.reasons?.[id] ?? '';
    const tc = el.ele('testcase', { classname: `bmc-conformance.${t.name}`, name: `${id} ${titleOf(id)}` });
    const c = change(id);
    const p = tc.ele('properties');
    p.ele('property', { name: 'verdict', value: v });
    const partly = t.partly?.[id];
    if (partly !== undefined) p.ele('property', { name: 'partly judged', value: partly });
    if (c)
      p.ele('property', {
        name: 'change',
        value: `${c.kind === 'regression' ? 'newly failing' : c.kind === 'fix' ? 'newly passing' : 'changed'}: ${c.from} before, ${c.to} now`,
      });
    if (v === 'FAIL')
      tc.ele('failure', { message: reason, type: 'requirement failed' }).txt(
        `${t.name} ${id}: ${reason}\n\nThe evidence is in the target's own folder (junit.xml, summary.html).`,
      );
    else if (v === 'XFAIL') tc.ele('skipped', { message: `XFAIL: ${reason}` });
    else if (v === 'NOT_TESTED') tc.ele('skipped', { message: 'NOT_TESTED' });
    else if (v === 'WARN' || v === 'XPASS') tc.ele('system-out').txt(`${v}: ${reason}`);
  }
}
