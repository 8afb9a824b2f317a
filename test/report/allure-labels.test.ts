/**
 * Allure's Suites tab groups the tests by the area they run in (the suite file `--only` names): the
 * fuzz and stateful tests are suites of their own, not filed under the spec area of their first
 * requirement; the Behaviors tab keeps grouping by the spec area.
 */
import { describe, expect, test } from 'vitest';
import { areaOfSuiteFile } from '../../catalogue/requirements.js';
import { testLabels } from '../../report/allure/test.js';

const suites = (labels: Array<{ name: string; value: string }>) =>
  labels.filter((l) => ['parentSuite', 'suite', 'subSuite', 'feature'].includes(l.name));

describe('Allure suite labels', () => {
  test('a fuzz test is under fuzz, and there under the spec area it checks', () => {
    const area = areaOfSuiteFile('/repo/dist/suites/fuzz/fuzz.suite.js');
    expect(suites(testLabels(['AUTH-4'], 'safe', area))).toEqual([
      { name: 'parentSuite', value: 'fuzz' },
      { name: 'suite', value: 'auth' },
      { name: 'feature', value: 'auth' },
    ]);
  });

  test('a stateful test is under stateful', () => {
    const area = areaOfSuiteFile('suites/stateful/stateful.suite.ts');
    expect(suites(testLabels(['EP-3', 'EP-8'], 'safe', area)).slice(0, 2)).toEqual([
      { name: 'parentSuite', value: 'stateful' },
      { name: 'suite', value: 'objects' },
    ]);
  });

  test('a test in the suite of its own area is one level deep', () => {
    expect(suites(testLabels(['AUTH-1', 'AUTH-5'], 'safe', areaOfSuiteFile('suites/auth/auth.suite.ts')))).toEqual([
      { name: 'parentSuite', value: 'auth' },
      { name: 'feature', value: 'auth' },
    ]);
  });

  test('a file that is no suite has no area', () => {
    expect(areaOfSuiteFile('suites/harness/check.ts')).toBeUndefined();
    expect(areaOfSuiteFile('suites/nope/nope.suite.ts')).toBeUndefined();
  });
});
