/**
 * The leak oracle (AUTH-5) in both directions: the requested path echoed, normalized or cut to a
 * prefix is no leak; a value of the tree or the path of another object is.
 */
import { describe, expect, test } from 'vitest';
import type { BmcResponse } from '../../client/http.js';
import { leakIn, spellingsOf, treeKnowledge } from '../../suites/harness/leak.js';

const ROOT = '/xyz/mgmt_project';
const SYSTEM = `${ROOT}/inventory/system`;
const knowledge = treeKnowledge(ROOT, [`${ROOT}/inventory`, SYSTEM, `${ROOT}/led/groups/enclosure_identify`, `${ROOT}/state/host0`], {
  [SYSTEM]: { SerialNumber: 'SN-1234-5678', Model: 'MGMT-1000', Present: 1, Manufacturer: 'Example' },
  [`${ROOT}/state/host0`]: { CurrentHostState: 'xyz.mgmt_project.State.Host.HostState.Off' },
});

function refusal(status: number, description: string, extra: Record<string, unknown> = {}): BmcResponse {
  const body = { data: { description, ...extra }, message: `${status} Error`, status: 'error' };
  const text = JSON.stringify(body);
  return { status, statusLine: `${status} Error`, headers: {}, text, json: body, durationMs: 0 };
}

function plain(status: number, text: string): BmcResponse {
  return { status, statusLine: `${status} Error`, headers: {}, text, json: undefined, durationMs: 0 };
}

describe('no leak: the request coming back', () => {
  test.each([
    ['the path as sent', `${SYSTEM}/attr/Nope`, `Attribute Nope not found on ${SYSTEM}/attr/Nope`],
    ['a prefix the server could resolve', `${SYSTEM}/attr/Nope`, `Path ${SYSTEM} has no attribute Nope`],
    ['cut inside a path element', `${ROOT}/inventory^/system/x`, `path or object not found: ${ROOT}/inventory`],
    ['collapsed slashes', `${ROOT}//inventory///system/x`, `Path not found: ${SYSTEM}/x`],
    ['resolved dot segments', `${ROOT}/led/../inventory/./system/x`, `Path ${SYSTEM}/x not found`],
    ['dot segments kept', `${ROOT}/inventory/../inventory/system`, `Path ${ROOT}/inventory/../inventory/system not found`],
    ['another case', `${ROOT}/INVENTORY/System/list`, `Path ${SYSTEM} not found`],
    ['percent-decoding', `${ROOT}/inventory%2Fsystem/x`, `Path ${SYSTEM}/x not found`],
    ['a path outside the tree', `${ROOT}/bmc_conformance_missing`, `Path ${ROOT}/bmc_conformance_missing not found`],
    ['the namespace root from the spec', '/login', `Log in before reading ${ROOT}`],
    // A token stops at "{": the echo must not fall apart into a path of the tree.
    ['a brace inside the path', `/xyz/{../xyz/mgmt_project/inventory/system`, `Path /xyz/{../xyz/mgmt_project/inventory/system not found`],
    // A field server answered this for a fuzzed path without credentials: the tree path is the request's own text.
    ['a leading part dropped', `/^.${SYSTEM}/list`, `Path /^.${SYSTEM} not found`],
  ])('%s', (_what, path, description) => {
    expect(leakIn(refusal(404, description), { path }, knowledge)).toBeUndefined();
  });

  test('a path of 50,000 characters echoed back', () => {
    const path = `/${'%C3%A9'.repeat(8192)}${SYSTEM}/attr/Model`;
    expect(leakIn(refusal(404, `Path ${path} not found`), { path }, knowledge)).toBeUndefined();
  });

  test('a value the request carried itself', () => {
    const body = JSON.stringify({ data: 'SN-1234-5678' });
    expect(
      leakIn(refusal(401, 'Login required to set SN-1234-5678'), { path: `${SYSTEM}/attr/SerialNumber`, body }, knowledge),
    ).toBeUndefined();
  });

  test('words and short values are not taken for data', () => {
    expect(leakIn(refusal(401, 'Login required: Example of a refusal'), { path: SYSTEM }, knowledge)).toBeUndefined();
  });
});

describe('leak: data of the target the request did not carry', () => {
  test('a serial number in a description', () => {
    expect(leakIn(refusal(401, 'Login required for SN-1234-5678'), { path: '/login' }, knowledge)).toMatch(/SN-1234-5678/);
  });

  test('a sibling path', () => {
    expect(
      leakIn(
        refusal(404, `Path ${ROOT}/inventory/nope not found; try ${ROOT}/led/groups/enclosure_identify`),
        { path: `${ROOT}/inventory/nope` },
        knowledge,
      ),
    ).toMatch(/enclosure_identify/);
  });

  test('paths listed in an extra member of an error map', () => {
    expect(leakIn(refusal(401, 'no', { paths: [`${ROOT}/inventory`, `${ROOT}/state`] }), { path: '/' }, knowledge)).toMatch(
      /a path of the tree/,
    );
  });

  test('a child of the requested path, even right after an echo of the request', () => {
    expect(leakIn(refusal(401, `${ROOT}/inventory is not yours; nor ${SYSTEM}`), { path: `${ROOT}/inventory` }, knowledge)).toMatch(
      /inventory\/system/,
    );
  });

  test('a tree path inside the request only as the start of a longer element', () => {
    expect(leakIn(refusal(404, `see ${SYSTEM}`), { path: `/x${SYSTEM}extra/list` }, knowledge)).toBeDefined();
  });

  test('a child of the requested path is not its prefix', () => {
    expect(leakIn(refusal(401, `see ${SYSTEM}`), { path: `${ROOT}/inventory` }, knowledge)).toBeDefined();
  });

  test('an enumerated value in a body that is not JSON', () => {
    expect(leakIn(plain(500, 'Traceback: state xyz.mgmt_project.State.Host.HostState.Off'), { path: '/subscribe' }, knowledge)).toMatch(
      /attribute value/,
    );
  });
});

test('spellings cover decoding, collapsing and dot segments, lower-cased', () => {
  const s = spellingsOf(`${ROOT}//Inventory/../inventory/%73ystem/`);
  expect(s.has(SYSTEM)).toBe(true);
  expect(s.has(`${ROOT}/inventory/../inventory/system`)).toBe(true);
});
