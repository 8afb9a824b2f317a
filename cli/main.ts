#!/usr/bin/env node
/**
 * The bmc-conformance entry. A Ctrl-C or SIGTERM while `run`, `load` or `replay` starts (its modules take a
 * moment to load) must not kill it silently: the early handler is in place before anything else loads, and
 * the program (program.ts) is loaded after it.
 */
import { holdEarlySignals } from '../runner/signals.js';

if (['run', 'load', 'replay'].includes(process.argv[2] ?? '')) holdEarlySignals();
await import('./program.js');
