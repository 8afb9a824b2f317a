/** The phosphor-rest dialect gives exactly its verdict table; with its shipped profile the run exits 0. */
import { describe } from 'vitest';
import { PHOSPHOR_REST } from './tables.js';
import { dialectTableTests } from './table-tests.js';

describe('phosphor-rest', () => dialectTableTests('phosphor-rest', PHOSPHOR_REST, 'profiles/phosphor-rest-server.json'));
