#!/usr/bin/env node
/** bmc-conformance: run | simulate | load | report */
import { Command, CommanderError, Option } from 'commander';
import { UsageError } from '../runner/usage-error.js';
import * as parse from './parse.js';
import { runCommand } from './run-command.js';
import { simulateCommand } from './simulate-command.js';
import { loadCommand } from './load-command.js';
import { reportCommand } from './report-command.js';

const program = new Command('bmc-conformance')
  .description('Conformance and load tests for the Management REST interface of a BMC.')
  .exitOverride()
  .showSuggestionAfterError(false)
  .configureOutput({ outputError: () => {} });

function targetOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option('--target <url>', 'https URL of the BMC (default: the embedded simulator)').env('BMC_URL'))
    .addOption(new Option('--user <name>', 'login user').env('BMC_USER').default('root'))
    .addOption(new Option('--password <password>', 'login password').env('BMC_PASSWORD').default('0penBmc'))
    .addOption(new Option('--namespace <ns>', 'vendor word in paths and interface names').env('BMC_NAMESPACE').default('mgmt_project'))
    .option('--insecure', 'accept a self-signed or mismatched TLS certificate', false)
    .option('--timeout <ms>', 'per-request timeout (default 120000; 15000 on the embedded simulator)', parse.positiveInt);
}

targetOptions(program.command('run').description('run the conformance suites against a target and write reports'))
  .addOption(new Option('--profile <profile>', 'read-only | safe | destructive (default: safe; destructive on the embedded simulator)').argParser(parse.profile))
  .option('--only <areas>', 'comma-separated areas to run (auth, envelope, objects, listings, writes, actions, delete, upload, events, errors, fuzz)', parse.areaList)
  .option('--requirements <ids>', 'comma-separated requirement IDs: run only the tests naming them', parse.requirementList)
  .option('--out <dir>', 'where results.json, junit.xml and allure-results go', 'reports/latest')
  .option('--writable <path:attr[=v|v]>', 'an attribute safe to write (restored after each test); repeatable', parse.writable, [])
  .option('--allow-factory-reset', 'let the destructive profile call software/action/Reset', false)
  .option('--tftp-server <host[:port]>', 'TFTP server for DownloadViaTFTP (destructive profile)', parse.tftpServer)
  .option('--tftp-file <name>', 'image tarball on the TFTP server', 'image.tar')
  .option('--event-timeout <ms>', 'how long to wait for an expected event', parse.positiveInt)
  .option('--quiet-window <ms>', 'how long to watch that no unexpected event arrives', parse.positiveInt)
  .option('--event-writes <n>', 'writes per measured event sequence (default 4; 10 on the simulator)', parse.positiveInt)
  .option('--fuzz-runs <n>', 'generated cases per fuzzing property', parse.positiveInt)
  .option('--seed <n>', 'seed of the fuzzer (replays a run)', parse.positiveInt)
  .option('--rps <n>', 'cap on requests per second to the target', parse.positiveInt)
  .option('--fault <name>', 'embedded simulator only: inject a fault (repeatable)', parse.collect, [])
  .option('--expectations <file>', 'known deviations of the platform: an expected FAIL is XFAIL and does not fail the run')
  .option('--strict-expectations', 'an expected failure that now passes (XPASS) fails the run', false)
  .option('--update-expectations <file>', 'write the current FAILs as a starting expectations file for review')
  .option('--html', 'also render the Allure HTML report (needs Java)', false)
  .action(runCommand);

program.command('simulate').description('start the reference simulator')
  .option('--host <host>', 'address to listen on', '127.0.0.1')
  .option('--port <port>', 'port (0 picks a free one)', parse.port, 0)
  .option('--namespace <ns>', 'vendor word', 'mgmt_project')
  .option('--user <name>', 'accepted user', 'root')
  .option('--password <password>', 'accepted password', '0penBmc')
  .option('--fault <name>', 'inject a fault (repeatable); see --list-faults', parse.collect, [])
  .option('--objects <n>', 'add N generated objects', parse.positiveInt, 0)
  .option('--cert <file>', 'PEM certificate (default: a self-signed one made at start)')
  .option('--key <file>', 'PEM private key for --cert')
  .option('--list-faults', 'print the fault catalogue and exit', false)
  .action(simulateCommand);

targetOptions(program.command('load').description('measure throughput and latency of a target under bounded load'))
  .option('--connections <n>', 'concurrent connections', parse.positiveInt)
  .option('--duration <s>', 'seconds per scenario', parse.positiveInt)
  .option('--scenario <names>', 'comma-separated: get-object, get-attr, list-children, list-network, enumerate-root (default: the first three)')
  .option('--max-requests <n>', 'cap on requests per scenario', parse.positiveInt)
  .option('--min-rps <n>', 'fail when a scenario serves fewer requests per second', parse.positiveInt)
  .option('--max-p99 <ms>', 'fail when a scenario p99 latency is higher', parse.positiveInt)
  .option('--baseline <file>', 'compare against an earlier load-results.json')
  .option('--out <dir>', 'where load-results.json goes', 'reports/latest')
  .action(loadCommand);

program.command('report').description('render the reports of a run (summary.html, summary.md, junit.xml, Allure) and what changed since a baseline')
  .option('--in <dir>', 'the run folder holding results.json and allure-results', 'reports/latest')
  .option('--previous <dir|file>', 'an earlier run (its folder or its results.json) to compare with; a newly failing requirement exits 1 (default: the run this one replaced, kept as DIR/previous/)')
  .option('--baseline <file>', 'the former name of --previous')
  .option('--no-html', 'skip the Allure HTML report')
  .option('--pdf', 'also print summary.html to summary.pdf with headless Chromium', false)
  .action(reportCommand);

async function main(argv: string[]): Promise<number> {
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.exitCode === 0) return 0; // --help, --version
      process.stderr.write(`${plainSentence(err.message)}\n`);
      return 2;
    }
    if (err instanceof UsageError) {
      process.stderr.write(`${err.message}\n`);
      return 2;
    }
    process.stderr.write(`${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
    return 2;
  }
}

/** commander says "error: unknown option '--x'"; we say it as a sentence. */
function plainSentence(message: string): string {
  const text = message.replace(/^error:\s*/i, '');
  const sentence = text.charAt(0).toUpperCase() + text.slice(1);
  return /[.!?]$/.test(sentence) ? sentence : `${sentence}.`;
}

// Exit explicitly: keep-alive sockets of a finished run must not hold the process open.
main(process.argv).then((code) => process.exit(code));
