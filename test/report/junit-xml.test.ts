import { describe, expect, test } from 'vitest';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { REQUIREMENTS } from '../../catalogue/requirements.js';
import { junitText } from '../../report/junit-xml.js';
import { verdictChanges } from '../../report/changes.js';
import { context, EXCHANGE, resultsWith } from './fixture.js';

interface Case {
  '@name': string;
  '@classname': string;
  failure?: { '@message': string; '@type': string; '#': string };
  skipped?: { '@message': string };
  'system-out'?: string;
  properties: { property: Array<{ '@name': string; '@value': string }> };
}

function parse(xml: string): { suites: Record<string, string>; cases: Case[] } {
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '@',
    textNodeName: '#',
    parseAttributeValue: false,
    parseTagValue: false,
    isArray: (name) => ['testsuite', 'testcase', 'property'].includes(name),
  });
  const doc = parser.parse(xml) as { testsuites: Record<string, string> & { testsuite: Array<{ testcase: Case[] }> } };
  const cases = doc.testsuites.testsuite.flatMap((s) => s.testcase);
  return { suites: doc.testsuites, cases };
}

const HOSTILE = 'got "]]>" and <b>&amp;</b> and a \u0001 control character';

describe('junit.xml', () => {
  const results = resultsWith({
    'RULE-4': { verdict: 'FAIL', reason: 'POST …: expected 403 Forbidden, got 405', evidence: [EXCHANGE] },
    'EP-5': { verdict: 'NOT_TESTED', reason: 'needs the destructive profile' },
    'EP-6': { verdict: 'XFAIL', reason: 'lists too much', expected: 'known platform bug' },
    'EP-7': { verdict: 'WARN', reason: 'JSON true where the spec shows 1' },
    'ENV-2': { verdict: 'FAIL', reason: HOSTILE },
  });
  const previous = resultsWith({ 'ENV-2': { verdict: 'FAIL', reason: 'old' } });
  const xml = junitText(
    context(results, {
      trend: { source: 'old/results.json', previousStartedAt: 'then', changes: verdictChanges(previous, results), explicit: true },
    }),
  );
  const { suites, cases } = parse(xml);
  const byId = (id: string): Case => cases.find((c) => c['@name'].startsWith(`${id} `))!;

  test('has one test case per requirement, named by ID and title and grouped by area', () => {
    expect(cases).toHaveLength(REQUIREMENTS.length);
    expect(suites['@tests']).toBe(String(REQUIREMENTS.length));
    expect(suites['@failures']).toBe('2');
    expect(suites['@skipped']).toBe('2');
    const rule4 = REQUIREMENTS.find((r) => r.id === 'RULE-4')!;
    expect(byId('RULE-4')['@name']).toBe(`RULE-4 ${rule4.title}`);
    expect(byId('RULE-4')['@classname']).toBe(`bmc-conformance.${rule4.area}`);
  });

  test('a FAIL is a failure with the reason as its message and the evidence as its text', () => {
    const failure = byId('RULE-4').failure!;
    expect(failure['@message']).toBe('POST …: expected 403 Forbidden, got 405');
    expect(failure['#']).toContain('FAIL [RULE-4] test of RULE-4');
    expect(failure['#']).toContain('POST /xyz/mgmt_project/created');
    expect(failure['#']).toContain('HTTP 405 Method Not Allowed');
  });

  test('NOT_TESTED and XFAIL are skipped with their reasons; WARN passes with a note', () => {
    expect(byId('EP-5').skipped?.['@message']).toBe('NOT_TESTED: needs the destructive profile');
    expect(byId('EP-6').skipped?.['@message']).toBe('XFAIL: expected deviation (known platform bug): lists too much');
    expect(byId('EP-7').failure).toBeUndefined();
    expect(byId('EP-7')['system-out']).toBe('WARN: JSON true where the spec shows 1');
    expect(byId('EP-1').failure ?? byId('EP-1').skipped).toBeUndefined();
  });

  test('carries the level, verdict and the change since the baseline as properties', () => {
    const props = Object.fromEntries(byId('RULE-4').properties.property.map((p) => [p['@name'], p['@value']]));
    expect(props).toMatchObject({ level: 'MUST', verdict: 'FAIL', change: 'newly failing: PASS before, FAIL now' });
    expect(byId('ENV-2').properties.property.some((p) => p['@name'] === 'change')).toBe(false);
  });

  test('stays well-formed whatever the target answered', () => {
    expect(XMLValidator.validate(xml)).toBe(true);
    const message = byId('ENV-2').failure!['@message'];
    expect(message).toBe(HOSTILE.replace('\u0001', '\uFFFD'));
  });
});
