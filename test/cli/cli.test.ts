/** The command line as a user meets it: exit codes, one-sentence errors, reports without secrets. */
import { spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startSimulator, startTftpServer, type TftpServerHandle } from '../../simulator/index.js';
import { buildImageTarball } from '../../simulator/image-archive.js';
import { CLI, cli, type Ran } from '../support/cli.js';
import { packageRoot } from '../../client/package-root.js';
import { selfSignedCertificate } from '../../simulator/certificate.js';

const PASSWORD = 'cli-Secret-9f3a';

/** One plain sentence on stderr. */
/** `run` against the test's simulator, with these flags after the target's. */
function onSim(...flags: string[]): string[] {
  return ['run', '--target', sim.url, '--insecure', '--password', PASSWORD, ...flags];
}

/**
 * One run serves two tests: every input it gives is right (namespace, writable, TFTP server), and
 * it selects one requirement whose test names another too. Started by whichever test comes first.
 */
let selectiveRun: Promise<Ran> | undefined;
function runWithInputsSelectingEp2(): Promise<Ran> {
  selectiveRun ??= cli(
    onSim(
      '--only',
      'auth',
      '--requirements',
      'EP-2',
      '--namespace',
      'mgmt_project',
      '--writable',
      '/xyz/mgmt_project/inventory/system:AssetTag',
      '--tftp-server',
      `127.0.0.1:${tftp.port}`,
      '--out',
      join(out, 'run-requirements'),
    ),
  );
  return selectiveRun;
}

function expectSentence(stderr: string): void {
  const lines = stderr.trim().split('\n');
  expect(lines, stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^[A-Z-].*[.!?]$/);
}

let sim: { url: string; close(): Promise<void> };
let out: string;
let tftp: TftpServerHandle;

beforeAll(async () => {
  sim = await startSimulator({ password: PASSWORD });
  out = await mkdtemp(join(tmpdir(), 'bmc-cli-'));
  await mkdir(join(out, 'tftp'));
  await writeFile(join(out, 'tftp', 'image.tar'), buildImageTarball({ version: 'cli-tftp' }));
  tftp = await startTftpServer({ root: join(out, 'tftp') });
});

afterAll(async () => {
  await tftp?.close();
  await sim?.close();
  await rm(out, { recursive: true, force: true });
});

describe('usage errors exit 2 with one sentence', () => {
  test('--help lists the five commands and exits 0', async () => {
    const r = await cli(['--help']);
    expect(r.code).toBe(0);
    for (const c of ['run', 'simulate', 'load', 'report', 'replay']) expect(r.stdout).toContain(c);
  });

  test.each([
    [['run', '--bogus']],
    [['run', '--profile', 'reckless']],
    [['run', '--only', 'auth,nonsense']],
    [['run', '--timeout', 'soon']],
    [['run', '--min-judged', '120%']],
    [['run', '--timeout', '99999999999']],
    [['run', '--reboot-wait', '0']],
    [['simulate', '--event-latency', '700000']],
    [['replay', '--wait', '0']],
    [['replay', '--in', '/nonexistent-run-folder']],
    [['run', '--requirements', 'EP-99']],
    [['frobnicate']],
    [['run', '--target', 'https://127.0.0.1:1', '--fault', 'status-ok-on-error']],
    [['run', '--event-writes', '0']],
    [['load', '--duration', '0']],
    [['load', '--connections', '0']],
    // The embedded simulator refused it with a stack trace.
    [['run', '--namespace', 'bad-name']],
    [['load', '--namespace', 'bad-name']],
  ])('%j', async (args) => {
    const r = await cli(args);
    expect(r.code).toBe(2);
    expectSentence(r.stderr);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  test('no command: the usage on stderr, nothing after it, exit 2', async () => {
    const r = await cli([]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^Usage: bmc-conformance /);
    expect(r.stderr.trimEnd().split('\n').at(-1)).toMatch(/^ {2}help \[command\]/);
    expect(r.stderr).not.toContain('outputHelp');
  });

  test("the README's command block names every flag each command's --help shows, and none it does not", async () => {
    const readme = await readFile(join(packageRoot(), 'README.md'), 'utf8');
    const block = /## Commands\n+```\n([\s\S]*?)```/.exec(readme)![1]!;
    // Each command's entries (a command may have several), their continuation lines included.
    const entries = new Map<string, string>();
    let command = '';
    for (const line of block.split('\n')) {
      command = /^bmc-conformance (\w+)/.exec(line)?.[1] ?? command;
      entries.set(command, `${entries.get(command) ?? ''}${line}\n`);
    }
    const helpFlags = async (c: string): Promise<string[]> => {
      const r = await cli([c, '--help']);
      expect(r.code).toBe(0);
      return [...r.stdout.matchAll(/^ {2}(?:-\w, )?(--[a-z0-9-]+)/gm)].map((m) => m[1]!).filter((f) => f !== '--help' && f !== '--version');
    };
    // "[target flags as run]" stands for the flags every command that talks to one target takes.
    const targetFlags = ['--target', '--user', '--password', '--namespace', '--insecure', '--timeout'];
    expect([...entries.keys()].sort()).toEqual(['load', 'replay', 'report', 'run', 'simulate']);
    for (const [c, text] of entries) {
      const shown = await helpFlags(c);
      const flags = new Set([...(text.match(/--[a-z0-9-]+/g) ?? []), ...(/target flags as run/.test(text) ? targetFlags : [])]);
      expect(
        shown.filter((f) => !flags.has(f)),
        `${c}: in --help, not in the README`,
      ).toEqual([]);
      expect(
        [...flags].filter((f) => !shown.includes(f)),
        `${c}: in the README, not in --help`,
      ).toEqual([]);
    }
  });

  test('a bad count names the range it takes', async () => {
    const r = await cli(['load', '--connections', '0']);
    expect(r.stderr).toMatch(/--connections.*at least 1/);
  });

  test('a misspelt flag or command gets a suggestion', async () => {
    const flag = await cli(['run', '--tagret', 'https://127.0.0.1:1']);
    expect(flag.code).toBe(2);
    expectSentence(flag.stderr);
    expect(flag.stderr).toMatch(/Did you mean --target\?/);
    const command = await cli(['lod']);
    expect(command.code).toBe(2);
    expect(command.stderr).toMatch(/Did you mean load\?/);
  });

  test.each([[['--version']], [['run', '--version']], [['load', '--version']], [['simulate', '--version']], [['report', '--version']]])(
    '%j prints the version and exits 0',
    async (args) => {
      const r = await cli(args);
      expect(r.code).toBe(0);
      expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    },
  );

  test('an unreachable target', async () => {
    const r = await cli(['run', '--target', 'https://127.0.0.1:1', '--insecure']);
    expect(r.code).toBe(2);
    expectSentence(r.stderr);
    expect(r.stderr).toMatch(/reach|refused/i);
    expect(r.ms).toBeLessThan(20_000);
  });

  test('a wrong password', async () => {
    const r = await cli(['run', '--target', sim.url, '--insecure', '--password', 'not-it']);
    expect(r.code).toBe(2);
    expectSentence(r.stderr);
    expect(r.stderr).toMatch(/refused/i);
    expect(r.stderr).toMatch(/--password/);
    expect(r.stderr).not.toContain('not-it');
  });

  describe("the user's inputs are checked before any test", () => {
    const on = () => onSim('--only', 'auth', '--out', join(out, 'inputs'));

    test('a namespace the target does not have names the ones it lists', async () => {
      const r = await cli([...on(), '--namespace', 'openbmc_project']);
      expect(r.code).toBe(2);
      expectSentence(r.stderr);
      expect(r.stderr).toMatch(/\/xyz\/openbmc_project\/ answers 404.*lists mgmt_project.*--namespace/);
    });

    test("a namespace from a target profile names the profile's file", async () => {
      const profile = join(packageRoot(), 'profiles', 'phosphor-rest-server.json');
      const r = await cli([...on(), '--target-profile', profile]);
      expect(r.code).toBe(2);
      expectSentence(r.stderr);
      expect(r.stderr.trim()).toBe(
        `The namespace "openbmc_project" from ${profile} answers 404 Not Found at /xyz/openbmc_project/; the target lists mgmt_project under /xyz/: check the profile's namespace or pass --namespace.`,
      );
    });

    test('a writable that does not exist', async () => {
      const r = await cli([...on(), '--writable', '/xyz/mgmt_project/nope:Asserted']);
      expect(r.code).toBe(2);
      expectSentence(r.stderr);
      expect(r.stderr).toMatch(/\/xyz\/mgmt_project\/nope:Asserted does not exist.*--writable/);
    });

    test('a TFTP server that does not answer, or lacks the file', async () => {
      const silent = await cli([...on(), '--tftp-server', '127.0.0.1:9']);
      expect(silent.code).toBe(2);
      expectSentence(silent.stderr);
      expect(silent.stderr).toMatch(/does not answer.*--tftp-server/);
      const noFile = await cli([...on(), '--tftp-server', `127.0.0.1:${tftp.port}`, '--tftp-file', 'missing.tar']);
      expect(noFile.code).toBe(2);
      expect(noFile.stderr).toMatch(/has no file missing\.tar.*--tftp-file/);
    });

    test('the same inputs, right, are taken', async () => {
      const r = await runWithInputsSelectingEp2();
      expect(r.code, r.stderr).toBe(0);
    });
  });

  test('a plain http:// URL at a TLS port says the port speaks TLS and names the https:// URL', async () => {
    const r = await cli(['run', '--target', sim.url.replace(/^https/, 'http'), '--insecure', '--password', PASSWORD]);
    expect(r.code).toBe(2);
    expectSentence(r.stderr);
    expect(r.stderr).toContain(`answers with TLS, not plain HTTP: use ${sim.url}.`);
  });

  test('a certificate that is not trusted', async () => {
    const r = await cli(['run', '--target', sim.url, '--password', PASSWORD]);
    expect(r.code).toBe(2);
    expectSentence(r.stderr);
    expect(r.stderr).toMatch(/--insecure/);
  });

  test('NODE_TLS_REJECT_UNAUTHORIZED=0 in the environment: no warning of node, and the certificate is still checked', async () => {
    const r = await cli(['run', '--target', sim.url, '--password', PASSWORD], { NODE_TLS_REJECT_UNAUTHORIZED: '0' });
    expect(r.code).toBe(2);
    expectSentence(r.stderr);
    expect(r.stderr).toMatch(/self-signed certificate; pass --insecure/);
  });

  test.each([
    ['127.0.0.1:1', 'The target "127.0.0.1:1" is not an https URL; did you mean https://127.0.0.1:1?'],
    // The trailing slash goes, as from every target.
    ['localhost:1/', 'The target "localhost:1" is not an https URL; did you mean https://localhost:1?'],
    ['htps://127.0.0.1:1', 'The target "htps://127.0.0.1:1" is not an https URL; did you mean https://127.0.0.1:1?'],
    // Credentials in what is not a URL are never shown.
    ['root:Target-Secret-1@127.0.0.1:1', 'The target "…@127.0.0.1:1" is not an https URL; did you mean https://127.0.0.1:1?'],
  ])('--target %s offers the https URL', async (target, sentence) => {
    const r = await cli(['run', '--target', target]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(sentence);
  });

  test('a plain http:// URL where nothing answers offers the https form', async () => {
    const r = await cli(['run', '--target', 'http://127.0.0.1:1', '--insecure']);
    expect(r.code).toBe(2);
    expectSentence(r.stderr);
    expect(r.stderr.trim()).toMatch(
      /^Cannot reach http:\/\/127\.0\.0\.1:1: .*; the interface is HTTPS: did you mean https:\/\/127\.0\.0\.1:1\?$/,
    );
  });
});

describe('run against a target', () => {
  test('a run that judges nothing exits 5 and says so, in neutral colours', async () => {
    const dir = join(out, 'nothing-judged');
    const r = await cli(onSim('--only', 'writes', '--profile', 'read-only', '--out', dir));
    expect(r.code, r.stdout + r.stderr).toBe(5);
    expect(r.stdout).toMatch(/nothing was judged: every requirement is NOT_TESTED \(exit 5\)/);
    const page = await readFile(join(dir, 'summary.html'), 'utf8');
    expect(page).toMatch(/class="outcome v-NOT_TESTED">Nothing was judged/);
    expect(page).not.toMatch(/class="outcome v-PASS"/);
    expect(await readFile(join(dir, 'summary.md'), 'utf8')).toMatch(/: nothing judged/);
  });

  test('a partial run: --min-judged above what it judged exits 5 and says how many; results.json, junit.xml and Allure results say why the rest were not judged and hold no credential', async () => {
    const dir = join(out, 'run');
    const r = await cli(onSim('--only', 'auth,envelope,objects', '--min-judged', '60', '--out', dir));
    expect(r.code, r.stdout + r.stderr).toBe(5);
    expect(r.stdout).toMatch(/coverage: \d+ of \d+ selected requirements were judged; --min-judged asks for 60 \(exit 5\)/);
    const results = JSON.parse(await readFile(join(dir, 'results.json'), 'utf8'));
    expect(results).toMatchObject({ target: sim.url, namespace: 'mgmt_project', profile: 'safe' });
    // Exit 5 came from the coverage alone: nothing the areas judged failed.
    expect(results.summary.FAIL).toBe(0);
    expect(typeof results.seed).toBe('number');
    const byId = Object.fromEntries(results.requirements.map((x: { id: string }) => [x.id, x]));
    expect(byId['EP-1'].verdict).toBe('PASS');
    expect(byId['EP-5']).toMatchObject({ verdict: 'NOT_TESTED', reason: 'area listings not selected (--only)' });
    expect(byId['AUTH-2'].tests.some((t: { verdict: string }) => t.verdict === 'NOT_TESTED')).toBe(true);
    // Every area's run, destructive and without --writable, is checked the same way in test/hardware/discovery.test.ts.
    const files = [
      join(dir, 'results.json'),
      join(dir, 'junit.xml'),
      ...(await readdir(join(dir, 'allure-results'))).map((f) => join(dir, 'allure-results', f)),
    ];
    expect(files.length).toBeGreaterThan(5);
    const outputs = [...files.map((f) => [f, readFile(f, 'utf8')] as const), ['stdout', r.stdout] as const, ['stderr', r.stderr] as const];
    let redacted = 0;
    for (const [name, content] of outputs) {
      const text = await content;
      if (text.includes('<redacted>')) redacted++;
      expect(text.includes(PASSWORD), `${name} holds the password`).toBe(false);
      expect(/sid=[0-9a-f]{16}/.test(text), `${name} holds a session cookie`).toBe(false);
    }
    // The credentials were there to leak: the exchanges that carried them are kept, redacted.
    expect(redacted).toBeGreaterThan(1);
  });

  test('--requirements judges only the IDs it names, though their tests name others too', async () => {
    const dir = join(out, 'run-requirements');
    const r = await runWithInputsSelectingEp2();
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const results = JSON.parse(await readFile(join(dir, 'results.json'), 'utf8'));
    const judged = results.requirements.filter((x: { verdict: string }) => x.verdict !== 'NOT_TESTED').map((x: { id: string }) => x.id);
    // The EP-2 check names AUTH-5 too: it ran, but AUTH-5 was not asked for.
    expect(judged).toEqual(['EP-2']);
    const auth5 = results.requirements.find((x: { id: string }) => x.id === 'AUTH-5');
    expect(auth5).toMatchObject({ verdict: 'NOT_TESTED', reason: 'not selected (--requirements)' });
    expect(r.stdout).toMatch(/requirement\(s\) not selected: IDs not named \(--requirements\)/);
    expect(r.stdout.split('\n').filter((l) => /not selected/.test(l))).toHaveLength(1);
  });

  test('report prints the verdicts and the changes since a baseline', async () => {
    const dir = join(out, 'run');
    const r = await cli(['report', '--in', dir, '--baseline', join(dir, 'results.json'), '--no-html']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('no verdict changed since the baseline');
    expect(r.stdout).toMatch(/requirements: \d+ PASS, 0 FAIL/);
  });

  test('report without a run says so', async () => {
    const r = await cli(['report', '--in', join(out, 'nothing-here')]);
    expect(r.code).toBe(2);
    expectSentence(r.stderr);
  });
});

describe('simulate and load', () => {
  test.each([
    ['SIGTERM', 143],
    ['SIGINT', 130],
  ] as const)(
    'simulate prints "listening https://HOST:PORT" first; %s closes it with exit %i, as every command',
    async (signal, expected) => {
      const child = spawn(process.execPath, [CLI, 'simulate', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
      const first = await new Promise<string>((resolve) => {
        let buf = '';
        child.stdout.on('data', (d: Buffer) => {
          buf += d.toString();
          if (buf.includes('\n')) resolve(buf.split('\n')[0]!);
        });
      });
      expect(first).toMatch(/^listening https:\/\/127\.0\.0\.1:\d+$/);
      const code = await new Promise<number | null>((resolve) => {
        child.on('close', resolve);
        child.kill(signal);
      });
      expect(code).toBe(expected);
    },
  );

  describe('simulate: a listening problem is one sentence naming the flag to change', () => {
    let busy: Server;
    let files: string;
    beforeAll(async () => {
      busy = createServer();
      await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
      files = await mkdtemp(join(tmpdir(), 'bmc-simulate-'));
      const pair = await selfSignedCertificate();
      const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' });
      await writeFile(join(files, 'cert.pem'), pair.cert);
      await writeFile(join(files, 'key.pem'), pair.key);
      await writeFile(join(files, 'other-key.pem'), other);
      await writeFile(join(files, 'junk.pem'), 'not a PEM file\n');
    });
    afterAll(async () => {
      await new Promise((resolve) => busy.close(resolve));
      await rm(files, { recursive: true, force: true });
    });

    test.each([
      [
        'a port in use',
        () => ['--port', String((busy.address() as AddressInfo).port)],
        /^Port \d+ on 127\.0\.0\.1 is in use: choose another --port, or 0 for a free one\.$/,
      ],
      // TEST-NET-1 (RFC 5737): never an address of this machine.
      [
        'an address not on this machine',
        () => ['--host', '192.0.2.1'],
        /^The address 192\.0\.2\.1 is not one of this machine's: give --host as /,
      ],
      [
        'a host name that does not resolve',
        () => ['--host', 'no-such-host.invalid'],
        /^The host name no-such-host\.invalid does not resolve: give --host /,
      ],
      [
        'a certificate file missing',
        () => ['--cert', join(files, 'missing.pem'), '--key', join(files, 'key.pem')],
        /^Cannot read --cert \S+missing\.pem \(no such file\): /,
      ],
      [
        'a certificate file that holds none',
        () => ['--cert', join(files, 'junk.pem'), '--key', join(files, 'key.pem')],
        /^--cert \S+junk\.pem holds no PEM certificate: /,
      ],
      [
        'a key file that holds none',
        () => ['--cert', join(files, 'cert.pem'), '--key', join(files, 'junk.pem')],
        /^--key \S+junk\.pem holds no PEM private key /,
      ],
      [
        'a key of another certificate',
        () => ['--cert', join(files, 'cert.pem'), '--key', join(files, 'other-key.pem')],
        /^--key \S+other-key\.pem is not the private key of --cert /,
      ],
      [
        'a namespace that is no path element',
        () => ['--namespace', 'not-a-word'],
        /--namespace.*'not-a-word'.*Expected a D-Bus path element: letters, digits and _\.$/,
      ],
      ['more objects than it makes', () => ['--objects', '2000000'], /--objects.*at most 1,000,000\.$/],
    ] as Array<[string, () => string[], RegExp]>)('%s: exit 2, one sentence', async (_what, args, sentence) => {
      const r = await cli(['simulate', ...args()], {}, 20_000);
      expect(r.code, r.stdout).toBe(2);
      expectSentence(r.stderr);
      expect(r.stderr.trim()).toMatch(sentence);
    });
  });

  test('simulate --list-faults names each fault with its requirement and operator', async () => {
    const r = await cli(['simulate', '--list-faults']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/status-ok-on-error\s+ENV-3\s+misreport\s/);
  });

  test('simulate --list-faults --sites prints the answer and the event pairs, one FAULT@SITE a line', async () => {
    const r = await cli(['simulate', '--list-faults', '--sites']);
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toContain('answer-omits-data@logout:ok');
    expect(lines).toContain('event-dropped@put-attr:empty');
    expect(lines).toContain('event-wrong-path@upload:interfaces');
    expect(lines).not.toContain('event-wrong-path@upload:both');
    expect(lines.filter((l) => l.startsWith('event-'))).toHaveLength(41);
  });

  test('load runs a bounded scenario and writes load.json', async () => {
    const dir = join(out, 'load');
    const r = await cli([
      'load',
      '--target',
      sim.url,
      '--insecure',
      '--password',
      PASSWORD,
      '--scenario',
      'get-object',
      '--duration',
      '1',
      '--connections',
      '2',
      '--max-requests',
      '300',
      '--out',
      dir,
    ]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const load = JSON.parse(await readFile(join(dir, 'load.json'), 'utf8'));
    expect(load.results[0]).toMatchObject({ scenario: 'get-object', non2xx: 0, errors: 0 });
    expect(load.results[0].requests).toBeGreaterThan(0);
    expect(load.results[0].requests).toBeLessThanOrEqual(300);
  });
});
