/** bmc-conformance: run | simulate | load | report (main.ts loads this once its signal handler is in place). */
import { Command, CommanderError, Option } from 'commander';
import { UsageError } from '../client/usage-error.js';
import * as parse from './parse.js';
import { limited, parseMix, parseRamp, parseReadEndpoints, parseScenarios, parseSoak, percentOf } from './load-limits.js';
import { DEFAULT_MIX, DEFAULT_SCENARIOS, SCENARIOS } from '../load/scenarios.js';
import { DEFAULT_IN, fleetOptions, mergeOptions } from './command-options.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../client/package-root.js';
import { LATENCY_ROUTES } from '../simulator/route-latency.js';
import { TREE_SNAPSHOTS } from '../client/tree-reads.js';

const VERSION = (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;

const program = new Command('bmc-conformance')
  .description('Conformance and load tests for the Management REST interface of a BMC.')
  .exitOverride()
  .showSuggestionAfterError(true)
  .configureOutput({ outputError: () => {} });
withVersion(program);

/**
 * A command's code (vitest, undici, the simulator) loads when the command runs, so that --help,
 * --version and usage errors answer at once.
 */
function lazy<M, K extends keyof M>(load: () => Promise<M>, name: K): (...args: unknown[]) => Promise<void> {
  return async (...args) => {
    await ((await load())[name] as (...a: unknown[]) => unknown)(...args);
  };
}

/**
 * Times have an upper bound too: a timer of more than 2^31 ms fires at once, and a wait of days on
 * a BMC is a mistake, not a plan.
 */
const TIMEOUT_MS = parse.numberIn(1, 3_600_000, 'milliseconds');
const WAIT_S = parse.numberIn(1, 86_400, 'seconds');
/** The simulator's own delays (simulator/server.ts checkDelay takes up to 600,000 ms). */
const DELAY_MS = parse.numberIn(0, 600_000, 'milliseconds');
/** The simulator's bound on generated objects (simulator/server.ts checkCount). */
const OBJECTS = parse.numberIn(0, 1_000_000, 'objects');

/** `--version` on the program and on every command, as a user tries it where they stand. */
function withVersion(cmd: Command): Command {
  return cmd.version(VERSION, '-V, --version', 'print the version and exit');
}

/** `insecure`: how --insecure reads; replay's has no default of its own (the run's holds). */
function targetOptions(
  cmd: Command,
  insecure: { help: string; default?: boolean } = { help: 'accept a self-signed or mismatched TLS certificate', default: false },
): Command {
  return cmd
    .addOption(
      new Option(
        '--target <url>',
        'https URL of the BMC (default: the embedded simulator); credentials in it (https://user:pass@host) are used as --user/--password and never printed',
      ).env('BMC_URL'),
    )
    .addOption(new Option('--user <name>', 'login user').env('BMC_USER').default('root'))
    .addOption(new Option('--password <password>', 'login password').env('BMC_PASSWORD').default('0penBmc'))
    .addOption(
      new Option('--namespace <ns>', 'vendor word in paths and interface names')
        .env('BMC_NAMESPACE')
        .default('mgmt_project')
        .argParser(parse.namespace),
    )
    .option('--insecure', insecure.help, insecure.default)
    .option('--timeout <ms>', 'per-request timeout (default 120000; 15000 on the embedded simulator)', TIMEOUT_MS);
}

fleetOptions(
  targetOptions(
    withVersion(program.command('run')).description(
      'run the conformance suites against a target, or a fleet of targets, and write reports',
    ),
  ),
)
  .addOption(
    new Option('--profile <profile>', 'read-only | safe | destructive (default: safe; destructive on the embedded simulator)').argParser(
      parse.profile,
    ),
  )
  .option(
    '--only <areas>',
    'comma-separated areas to run (auth, envelope, objects, listings, writes, actions, delete, upload, events, errors, fuzz, stateful)',
    parse.areaList,
  )
  .option('--requirements <ids>', 'comma-separated requirement IDs: run only the tests naming them', parse.requirementList)
  .option('--out <dir>', 'where results.json, junit.xml and allure-results go', 'reports/latest')
  .option('--writable <path:attr[=v|v]>', 'an attribute safe to write (restored after each test); repeatable', parse.writable, [])
  .option('--allow-factory-reset', 'let the destructive profile call software/action/Reset', false)
  .option('--tftp-server <host[:port]>', 'TFTP server for DownloadViaTFTP (destructive profile)', parse.tftpServer)
  .option('--tftp-file <name>', 'image tarball on the TFTP server', 'image.tar')
  .option('--event-timeout <ms>', 'how long to wait for an expected event', TIMEOUT_MS)
  .option('--quiet-window <ms>', 'how long to watch that no unexpected event arrives', TIMEOUT_MS)
  .option('--event-writes <n>', 'writes per measured event sequence (default 4; 10 on the simulator)', parse.positiveInt)
  .option(
    '--fuzz-runs <n>',
    'generated cases per fuzzing property (default 100; 150 on the embedded simulator in the spec dialect)',
    parse.positiveInt,
  )
  .option(
    '--stateful-runs <n>',
    'command sequences per stateful check (values, versions, credentials; default 4); a finding replays with --seed S and BMC_FUZZ_PATH=KEY',
    parse.positiveInt,
  )
  .option(
    '--stateful-time <s>',
    'time budget of each stateful check, its discovery included, on a target other than the embedded simulator in the spec dialect, or whose whole-tree enumerate takes 1 s or more (default 10): no sequence starts that would not end within it, the one under way starts no command that would not end within it (a kind not run yet is taken for as long as the longest command so far) and puts the target back, the first sequence always runs',
    WAIT_S,
  )
  .addOption(
    new Option(
      '--tree-snapshot <how>',
      "how checks of whole-tree effects read the tree: enumerate (of the namespace root) or objects (its list, then a GET of each object); default: objects when the target's enumerate takes 1 s or more and reading object by object is measured to take at most half of it",
    ).choices(TREE_SNAPSHOTS),
  )
  .option('--seed <n>', 'seed of the fuzzer (replays a run)', parse.wholeNumber)
  .option('--rps <n>', 'cap on requests per second to the target', parse.positiveInt)
  .option('--max-response-bytes <n>', 'cut off answers longer than this and report them (default 33554432, 32 MiB)', parse.positiveInt)
  .option(
    '--reboot-wait <s>',
    'how long to wait for a target that went away (a reboot) to come back (default 300; 30 on the embedded simulator)',
    WAIT_S,
  )
  .option(
    '--fault <name>',
    'embedded simulator only: inject a fault, or a fault at one site as NAME@ROUTE:OUTCOME (answers) or NAME@CAUSE:SHAPE (events) (repeatable; see simulate --list-faults)',
    parse.collect,
    [],
  )
  .option('--dialect <name>', 'embedded simulator only: behave as spec (default), phosphor-rest, bmcweb (bmcweb@current) or bmcweb@2023')
  .option('--event-latency <ms>', "embedded simulator only: the dialect's event delay (phosphor-rest polls: 2000)", DELAY_MS)
  .option('--upload-fail-delay <ms>', 'embedded simulator only: how late the dialect answers a failed upload', DELAY_MS)
  .option(
    '--route-latency <route=ms>',
    `embedded simulator only: a route's extra time, e.g. enumerate=3000 (repeatable; routes: ${LATENCY_ROUTES.join(', ')})`,
    parse.routeLatency,
  )
  .option(
    '--request-time <ms>',
    "embedded simulator only: the dialect's time per plain request, one request at a time (phosphor-rest: 10; 0 answers at once)",
    DELAY_MS,
  )
  .option(
    '--target-profile <file>',
    "the platform's reviewed profile: namespace, writables, timeouts, rate cap, known deviations (flags win)",
  )
  .option('--expectations <file>', 'known deviations of the platform: an expected FAIL is XFAIL and does not fail the run')
  .option('--strict-expectations', 'an expected failure that now passes (XPASS) fails the run', false)
  .option(
    '--min-judged <n|p%>',
    'a certification run: fewer judged requirements than N (or than P% of the selected ones) exits 5, as a run that judged nothing does',
    parse.minJudged,
  )
  .option(
    '--update-expectations <file>',
    'write the current FAILs, and the expectations the run did not refute, as a starting expectations file for review',
  )
  .option('--html', 'also render the Allure HTML report (needs Java)', false)
  .action(lazy(() => import('./run-command.js'), 'runCommand'));

withVersion(program.command('simulate'))
  .description('start the reference simulator')
  .option('--host <host>', 'address to listen on', '127.0.0.1')
  .option('--port <port>', 'port (0 picks a free one)', parse.port, 0)
  .option('--namespace <ns>', 'vendor word', parse.namespace, 'mgmt_project')
  .option('--user <name>', 'accepted user', 'root')
  .option('--password <password>', 'accepted password', '0penBmc')
  .option(
    '--fault <name>',
    'inject a fault, or a fault at one site as NAME@ROUTE:OUTCOME (answers) or NAME@CAUSE:SHAPE (events) (repeatable); see --list-faults [--sites]',
    parse.collect,
    [],
  )
  .option('--objects <n>', 'add N generated objects', OBJECTS, 0)
  .option(
    '--dialect <name>',
    'behave as spec (the specification), phosphor-rest, bmcweb (bmcweb@current) or bmcweb@2023 (the field servers)',
    'spec',
  )
  .option('--event-latency <ms>', "events wait for the server's next poll every MS (default: the dialect's, phosphor-rest 2000)", DELAY_MS)
  .option(
    '--upload-fail-delay <ms>',
    "a failed or duplicate upload answers after MS (default: the dialect's, phosphor-rest 10000, bmcweb 15000)",
    DELAY_MS,
  )
  .option(
    '--request-time <ms>',
    "the server's time per plain request, one request served at a time; object reads, enumerate, writes and uploads take more (default: the dialect's, phosphor-rest 10, else 0)",
    DELAY_MS,
  )
  .option(
    '--route-latency <route=ms>',
    `a route's extra time (a read's refusals come at once), e.g. enumerate=3000 (repeatable; routes: ${LATENCY_ROUTES.join(', ')})`,
    parse.routeLatency,
  )
  .option('--cert <file>', 'PEM certificate (default: a self-signed one made at start)')
  .option('--key <file>', 'PEM private key for --cert')
  .option('--list-faults', 'print the fault catalogue and exit', false)
  .option(
    '--sites',
    'with --list-faults: print every answer fault and every event fault at every site it applies to, one FAULT@ROUTE:OUTCOME or FAULT@CAUSE:SHAPE a line',
    false,
  )
  .action(lazy(() => import('./simulate-command.js'), 'simulateCommand'));

targetOptions(
  withVersion(program.command('load')).description(
    'measure throughput, latency, capacity and event delivery of a target under bounded load',
  ),
)
  .option(
    '--scenario <names>',
    `comma-separated scenarios: ${SCENARIOS.map((s) => s.name).join(', ')} (default: ${DEFAULT_SCENARIOS.join(', ')})`,
    parseScenarios,
  )
  .addOption(
    new Option(
      '--profile <profile>',
      'read-only | safe | destructive: write-mix and events need safe, upload and the session probe destructive (default: safe; destructive on the embedded simulator)',
    ).argParser(parse.profile),
  )
  .option('--writable <path:attr[=v|v]>', 'an attribute safe to write (restored and read back at the end); repeatable', parse.writable, [])
  .option('--duration <s>', 'seconds per scenario, or per step of a capacity search (default 5; 3 on the simulator)', limited('duration'))
  .option('--connections <n>', 'concurrent connections (default 2; 10 on the simulator)', limited('connections'))
  .option('--max-connections <n>', 'cap on --connections, whatever is asked (default 16; 256 on the simulator)', limited('maxConnections'))
  .option(
    '--max-requests <n>',
    'cap on requests per scenario (default 1,000 per second of duration; 50,000 on the simulator); a scenario it stops before its window ends says how much of the window it measured',
    limited('maxRequests'),
  )
  .option(
    '--rate <r>',
    'open loop: requests per second, latency from the intended send time (for events: writes per second); with --find-capacity the starting rate',
    limited('rate'),
  )
  .option('--ramp <a:b:n>', 'open loop rising from A to B requests/s in N steps over --duration', parseRamp)
  .option(
    '--find-capacity',
    'search the highest rate each scenario sustains, then the concurrent sessions (destructive) and subscribers',
    false,
  )
  .addOption(
    new Option(
      '--capacity-criterion <criterion>',
      'what a capacity step must keep: p99 (under --capacity-p99, default) or conformant (no violation found by its verification; implies --verify; p99 bounds it too only when --capacity-p99 is given)',
    ).choices(['p99', 'conformant']),
  )
  .option('--capacity-p99 <ms>', 'p99 bound of the capacity search (default 250)', limited('capacityP99'))
  .option('--max-rate <r>', 'highest rate the capacity search offers (default 100; 20000 on the simulator)', limited('maxRate'))
  .option('--max-sessions <n>', 'bound of the session capacity probe (default 32; 64 on the simulator)', limited('maxSessions'))
  .option(
    '--max-subscribers <n>',
    'cap on --subscribers and bound of the subscriber probe (default 64; 256 on the simulator)',
    limited('maxSubscribers'),
  )
  .option('--soak <duration>', 'run each scenario this long (90s, 30m, 2h) and report drift between the first and last windows', parseSoak)
  .option('--window <s>', 'soak window length (default a tenth of the soak, at most 60 s)', limited('window'))
  .option('--subscribers <n>', 'WebSocket subscribers of the events scenario (default 5; 20 on the simulator)', limited('subscribers'))
  .option(
    '--mix <weights>',
    `weights of read-mix, e.g. get-object=4,get-attr=1 (default ${Object.entries(DEFAULT_MIX)
      .map(([k, v]) => `${k}=${v}`)
      .join(',')})`,
    parseMix,
  )
  .option(
    '--event-timeout <ms>',
    'how long an event may take before it counts as lost (default 10000; 3000 on the simulator)',
    limited('eventTimeout'),
  )
  .option(
    '--abort-error-rate <pct>',
    'stop a scenario early when more than this share of its requests fail',
    percentOf('abortErrorRate'),
    10,
  )
  .option('--thresholds <file>', 'JSON rules per scenario, e.g. {"get-object": ["p99 < 250ms", "rps >= 50"]}: a miss exits 1')
  .option('--min-rps <n>', 'shorthand for the rule "rps >= N" on every scenario', limited('minRps'))
  .option('--max-p99 <ms>', 'shorthand for the rule "p99 <= N ms" on every scenario', limited('maxP99'))
  .option('--baseline <file>', 'an earlier load.json: a change worse than --tolerance exits 1')
  .option('--tolerance <pct>', 'how much worse than the baseline is still no regression', percentOf('tolerance'), 20)
  .option(
    '--verify',
    "judge the load's own answers as the suites do, a register's linearizability under N sessions and its events: a violation FAILs its requirement (exit 1)",
    false,
  )
  .option(
    '--verify-every <n>',
    'with --verify: judge every Nth answer, and every answer that is not 2xx (default 100)',
    limited('verifyEvery'),
  )
  .option(
    '--verify-sessions <n>',
    'with --verify: sessions that PUT and GET the register concurrently (default 4)',
    limited('verifySessions'),
  )
  .option(
    '--verify-reads <endpoints>',
    'with --verify: the endpoints the register is read back on, in turn: attr (GET PATH/attr/NAME), object (GET PATH), enumerate (GET PARENT/enumerate) (default all three)',
    parseReadEndpoints,
  )
  .option(
    '--fault <name>',
    'embedded simulator only: inject a fault, e.g. slow-requests, slow-serial or load-stale-read (repeatable)',
    parse.collect,
    [],
  )
  .option('--dialect <name>', 'embedded simulator only: behave as spec (default), phosphor-rest, bmcweb (bmcweb@current) or bmcweb@2023')
  .option(
    '--target-profile <file>',
    "the platform's reviewed profile: namespace, writables, timeouts, concurrency and rate caps (flags win)",
  )
  .option('--out <dir>', 'where load.json and load.html go', 'reports/latest')
  .action(lazy(() => import('./load-command.js'), 'loadCommand'));

mergeOptions(
  withVersion(program.command('report')).description(
    'render the reports of a run (summary.html, summary.md, junit.xml, Allure) and what changed since a baseline; or merge fleet folders',
  ),
)
  .option('--in <dir>', 'the run folder holding results.json and allure-results', DEFAULT_IN)
  .option(
    '--previous <dir|file>',
    'an earlier run (its folder or its results.json) to compare with; a newly failing requirement exits 1 (default: the run this one replaced, kept as DIR/previous/). A run of another target, namespace, profile or selection, or an interrupted one, is not compared. --baseline is its former name',
  )
  // The former name of --previous: still taken, and named in --previous's text.
  .addOption(new Option('--baseline <file>', 'the former name of --previous').hideHelp())
  .option('--no-html', 'skip the Allure HTML report')
  .option('--pdf', 'also print summary.html to summary.pdf with headless Chromium', false)
  .option(
    '--sign <key>',
    'sign results.json, summary.html and junit.xml with the PREFIX.key of --keygen: writes attestation.intoto.json (in-toto, DSSE, ed25519); reports already rendered from this results.json are signed as they are',
  )
  .option(
    '--verify <file>',
    'check an attestation (or a run folder holding one) and the files it names (beside it, or in --in): exit 0 valid, 1 altered',
  )
  .option('--key <pub>', 'the public key --verify checks with')
  .option('--keygen <prefix>', 'make an ed25519 key pair PREFIX.key and PREFIX.pub for --sign and --verify')
  .action(lazy(() => import('./report-command.js'), 'reportCommand'));

targetOptions(
  withVersion(program.command('replay')).description(
    'repeat a failing test of a finished run against a target, from its evidence: its subscriptions, reads and attribute writes (put back afterwards), saying of each request whether it was repeated and answered as in the run; exit 0 when every request the finding is about was, 1 when one answered differently, 3 when one could not be repeated',
  ),
  { help: 'accept a self-signed or mismatched TLS certificate (default: as the run did, which results.json records)' },
)
  .option('--no-insecure', "check the target's TLS certificate even when the run accepted any")
  .option('--in <dir>', 'the run folder holding results.json', DEFAULT_IN)
  .option('--requirement <id>', 'replay the failing test of this requirement (default: the first failing test with evidence)')
  .option('--wait <ms>', 'how long the subscriptions listen after the last request', parse.positiveInt, 1500)
  .addHelpText(
    'after',
    `
  The request a finding is about is the one its reason names (METHOD /path, or a subscription's
  filter); a reason that names none makes every request of the test count. Deletes, uploads,
  actions, logins and logouts are not repeated: each is listed with a curl line to run by hand.
  Exit codes: 0 reproduced, 1 did not reproduce, 3 a request the finding is about could not be
  repeated (its curl line is printed), 2 a usage or environment error, 130/143 Ctrl-C/SIGTERM.
  --target defaults to the run's target (a run on the embedded simulator needs --target: its
  simulator is gone).`,
  )
  .action(lazy(() => import('./replay-command.js'), 'replayCommand'));

async function main(argv: string[]): Promise<number> {
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.exitCode === 0) return 0; // --help, --version
      // No command given: commander printed the usage (to stderr); its message is a placeholder.
      if (err.code === 'commander.help') return 2;
      process.stderr.write(`${plainSentence(err.message)}\n`);
      return 2;
    }
    if (err instanceof UsageError) {
      process.stderr.write(`${err.message}\n`);
      return 2;
    }
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    return 2;
  }
}

/** commander says "error: unknown option '--x'\n(Did you mean --y?)"; we say it as sentences on one line. */
function plainSentence(message: string): string {
  const text = message
    .replace(/^error:\s*/i, '')
    .replace(/\s*\n\s*\((Did you mean [^)]*)\)\s*$/, (_m, hint: string) => `. ${hint}`)
    .replace(/\s*\n\s*/g, ' ')
    .replace(/\. ([a-z])/g, (_m, c: string) => `. ${c.toUpperCase()}`);
  const sentence = text.charAt(0).toUpperCase() + text.slice(1);
  return /[.!?]$/.test(sentence) ? sentence : `${sentence}.`;
}

// Exit explicitly: keep-alive sockets of a finished run must not hold the process open.
void main(process.argv).then((code) => process.exit(code));
