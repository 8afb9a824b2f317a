/** The bmcweb dialect gives exactly its verdict table; with its shipped profile the run exits 0. */
import { describe } from 'vitest';
import { BMCWEB } from './tables.js';
import { dialectTableTests } from './table-tests.js';

describe('bmcweb', () => dialectTableTests('bmcweb', BMCWEB, 'profiles/bmcweb.json'));
