import { EventEmitter } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { holdEarlySignals, Interruption, JobSignals, releaseEarlySignals, type SignalHost, type StopSignal } from '../../runner/signals.js';

/** Signals emitted by hand; exits and stderr lines recorded, never carried out. */
class FakeHost extends EventEmitter implements SignalHost {
  exits: number[] = [];
  warnings: string[] = [];
  exit(code: number): void {
    this.exits.push(code);
  }
  warn(line: string): void {
    this.warnings.push(line);
  }
  send(signal: StopSignal): void {
    this.emit(signal, signal);
  }
}

afterEach(() => releaseEarlySignals());

describe('JobSignals', () => {
  it('stops the job on the first signal, with its time and exit code, and runs every stop once', () => {
    const host = new FakeHost();
    const said: StopSignal[] = [];
    const stopped: string[] = [];
    const job = new JobSignals({ first: (s) => said.push(s), again: { exit: true }, host });
    job.onStop((s) => stopped.push(`a ${s}`));
    expect(job.exitCode).toBeUndefined();
    host.send('SIGTERM');
    expect(said).toEqual(['SIGTERM']);
    expect(stopped).toEqual(['a SIGTERM']);
    expect(job.signal).toBe('SIGTERM');
    expect(job.at).toBeInstanceOf(Date);
    expect(job.exitCode).toBe(143);
    expect(host.exits).toEqual([]);
    // A stop added after the signal runs at once.
    job.onStop((s) => stopped.push(`b ${s}`));
    expect(stopped).toEqual(['a SIGTERM', 'b SIGTERM']);
    job.dispose();
  });

  it('exits at once on a second signal, with the code of that signal', () => {
    const host = new FakeHost();
    const job = new JobSignals({ first: () => {}, again: { exit: true, note: (s) => `${s} again` }, host });
    host.send('SIGTERM');
    host.send('SIGINT');
    expect(host.warnings).toEqual(['SIGINT again']);
    expect(host.exits).toEqual([130]);
    expect(job.signal).toBe('SIGTERM');
    job.dispose();
  });

  it('hands every later signal to a job that passes them on (a fleet)', () => {
    const host = new FakeHost();
    const passed: StopSignal[] = [];
    const job = new JobSignals({ first: (s) => passed.push(s), again: (s) => passed.push(s), host });
    host.send('SIGINT');
    host.send('SIGINT');
    host.send('SIGTERM');
    expect(passed).toEqual(['SIGINT', 'SIGINT', 'SIGTERM']);
    expect(host.exits).toEqual([]);
    expect(job.exitCode).toBe(130);
    job.dispose();
  });

  it('takes its listeners off when disposed', () => {
    const host = new FakeHost();
    const job = new JobSignals({ first: () => {}, again: { exit: true }, host });
    expect(host.listenerCount('SIGINT')).toBe(1);
    expect(host.listenerCount('SIGTERM')).toBe(1);
    job.dispose();
    expect(host.listenerCount('SIGINT') + host.listenerCount('SIGTERM')).toBe(0);
  });
});

describe('Interruption (run and load)', () => {
  it('says the run was interrupted, then exits at once on a second signal with a warning', () => {
    const host = new FakeHost();
    const lines: string[] = [];
    const run = new Interruption((line) => lines.push(line), host);
    expect(run.reason).toBeUndefined();
    host.send('SIGINT');
    expect(run.reason).toBe('the run was interrupted (SIGINT)');
    expect(lines).toEqual([
      'the run was interrupted (SIGINT): restoring what it wrote and closing its sessions; a second signal exits at once',
    ]);
    host.send('SIGTERM');
    expect(host.warnings).toEqual(['SIGTERM again: exiting at once; what the run wrote may be left on the target.']);
    expect(host.exits).toEqual([143]);
    run.dispose();
  });
});

describe('early signals', () => {
  it('exit 130 or 143 with a line until a job takes over, and are released when it does', () => {
    const host = new FakeHost();
    holdEarlySignals(host);
    holdEarlySignals(host); // held once only
    expect(host.listenerCount('SIGINT')).toBe(1);
    host.send('SIGINT');
    expect(host.warnings).toEqual(['SIGINT before the run started: nothing was written to the target.']);
    expect(host.exits).toEqual([130]);

    releaseEarlySignals();
    expect(host.listenerCount('SIGINT')).toBe(0);

    const later = new FakeHost();
    holdEarlySignals(later);
    expect(later.listenerCount('SIGTERM')).toBe(1);
    const job = new JobSignals({ first: () => {}, again: { exit: true }, host: later });
    // The job's listener only: the early one went as the job's came.
    expect(later.listenerCount('SIGTERM')).toBe(1);
    later.send('SIGTERM');
    expect(later.warnings).toEqual([]);
    expect(later.exits).toEqual([]);
    expect(job.exitCode).toBe(143);
    job.dispose();
  });
});
