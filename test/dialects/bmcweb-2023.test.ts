/** bmcweb as built in 2023 gives exactly its verdict table; with its shipped profile the run exits 0. */
import { describe } from 'vitest';
import { BMCWEB_2023 } from './tables.js';
import { dialectTableTests } from './table-tests.js';

describe('bmcweb@2023', () => dialectTableTests('bmcweb@2023', BMCWEB_2023, 'profiles/bmcweb-2023.json'));
