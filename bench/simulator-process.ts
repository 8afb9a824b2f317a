/**
 * A simulator in its own process, so a benchmark's load generator and the target do not share one
 * event loop. Faults (slow-* included) come as arguments; the first line is `listening URL`.
 */
import { startSimulator } from '../simulator/index.js';

const sim = await startSimulator({ faults: process.argv.slice(2) });
process.stdout.write(`listening ${sim.url}\n`);
process.on('SIGTERM', () => {
  void sim.close().then(() => process.exit(0));
});
