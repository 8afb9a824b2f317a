#!/usr/bin/env node
/**
 * The bmc-conformance entry. A Ctrl-C or SIGTERM while `run`, `load` or `replay` starts (its modules take a
 * moment to load) must not kill it silently: the early handler is in place before anything else loads, and
 * the program (program.ts) is loaded after it.
 */
import { holdEarlySignals } from '../runner/signals.js';

// Every TLS connection of the tool says whether it verifies the certificate (--insecure), so this
// variable changes nothing in it; node would still warn on the first connection that certificates
// go unverified, which here is false. It goes before anything connects (or starts a child: a fleet's runs).
delete process.env.NODE_TLS_REJECT_UNAUTHORIZED;
if (['run', 'load', 'replay'].includes(process.argv[2] ?? '')) holdEarlySignals();
await import('./program.js');
