/**
 * A replay key names a register history so that a report's reader can check it again: the shrunk
 * history itself, as base64url of compact JSON, prefixed with a version (`lin1.`). A shrunk history
 * has a handful of operations, so the key stays a few hundred characters and needs no file beside
 * it; `parseReplayKey` gives the same history back, and the same history always gives the same key.
 * A full history (thousands of operations) is too long for that: it is stored in a file and named
 * by `historyDigest`, a SHA-256 of the same encoding.
 *
 * Encoding: `[initial, [[client, "w"|"r"|"r:ENDPOINT", value, invokedAt, returnedAt, ok], …]]` (a
 * read of another endpoint than attr names it), times as the
 * numbers recorded (JSON numbers round-trip exactly; a pending operation's unknown response as
 * null), integers beyond 2^53 as plain digits.
 */
import { createHash } from 'node:crypto';
import { parseJson, stringifyJson } from '../../client/json.js';
import { READ_ENDPOINTS, validateHistory, type ReadEndpoint, type RegisterHistory, type RegisterOperation } from './history.js';

const PREFIX = 'lin1.';

function encode(history: RegisterHistory): string {
  const ops = history.operations.map((op) => [
    op.client,
    op.kind === 'write' ? 'w' : op.endpoint && op.endpoint !== 'attr' ? `r:${op.endpoint}` : 'r',
    op.value,
    op.invokedAt,
    Number.isFinite(op.returnedAt) ? op.returnedAt : null,
    op.ok,
  ]);
  return stringifyJson([history.initial, ops]);
}

export function replayKey(history: RegisterHistory): string {
  return PREFIX + Buffer.from(encode(history), 'utf8').toString('base64url');
}

/** The history a key names; throws a TypeError when the key is not one. */
export function parseReplayKey(key: string): RegisterHistory {
  if (!key.startsWith(PREFIX)) throw new TypeError(`a replay key starts with ${PREFIX}`);
  let data: unknown;
  try {
    data = parseJson(Buffer.from(key.slice(PREFIX.length), 'base64url').toString('utf8'));
  } catch {
    throw new TypeError('not a replay key: its text is not JSON');
  }
  if (!Array.isArray(data) || data.length !== 2 || !Array.isArray(data[1])) throw new TypeError('not a replay key');
  const operations = (data[1] as unknown[]).map((row, i) => {
    if (!Array.isArray(row) || row.length !== 6) throw new TypeError(`replay key: operation ${i} is malformed`);
    const [client, kind, value, invokedAt, returned, ok] = row as unknown[];
    const returnedAt = returned === null ? Infinity : returned;
    const endpoint = typeof kind === 'string' && kind.startsWith('r:') ? kind.slice(2) : undefined;
    if (
      typeof client !== 'string' ||
      (kind !== 'w' && kind !== 'r' && !READ_ENDPOINTS.includes(endpoint as ReadEndpoint)) ||
      typeof invokedAt !== 'number' ||
      typeof returnedAt !== 'number' ||
      typeof ok !== 'boolean'
    ) {
      throw new TypeError(`replay key: operation ${i} is malformed`);
    }
    const op: RegisterOperation = { client, kind: kind === 'w' ? 'write' : 'read', value, invokedAt, returnedAt, ok };
    if (endpoint) op.endpoint = endpoint as ReadEndpoint;
    return op;
  });
  const history = { initial: data[0], operations };
  validateHistory(history);
  return history;
}

/** A stable name for a history too long for a key: SHA-256 (hex) of its encoding. */
export function historyDigest(history: RegisterHistory): string {
  return createHash('sha256').update(encode(history)).digest('hex');
}
