/**
 * The commands of the credentials check, and the check as a stateful property: log in (plainly, or
 * sending cookies the client made up), try a live session's cookies cut, lengthened or altered,
 * log out the oldest or the newest of the live sessions while another one stays, and try the
 * cookie of a session that ended earlier again after a later login.
 */
import fc from 'fast-check';
import { CREDENTIAL_REQUIREMENTS } from '../../catalogue/requirements.js';
import { TAMPERS, type Tamper } from './credentials.js';
import { statefulProperty, StepCommand, type StatefulSpec } from './property.js';
import { SessionsWorld, type SessionsDiscovery } from './sessions.js';
import type { Notes, StatefulEnv } from './world.js';

class Login extends StepCommand<SessionsWorld> {
  constructor(readonly chosen: boolean) {
    super();
  }

  protected async act(world: SessionsWorld): Promise<void> {
    await world.login(this.chosen);
  }

  toString(): string {
    return `login(${this.chosen ? 'with a chosen cookie' : 'plain'})`;
  }
}

class TamperCookie extends StepCommand<SessionsWorld> {
  constructor(
    readonly i: number,
    readonly how: Tamper,
  ) {
    super();
  }

  protected async act(world: SessionsWorld): Promise<void> {
    const live = world.live;
    const session = live.length > 0 ? live[this.i % live.length]! : await world.login(false);
    await world.tamper(session, this.how);
  }

  toString(): string {
    return `tamper(${this.i}, ${this.how})`;
  }
}

class Logout extends StepCommand<SessionsWorld> {
  constructor(readonly which: 'oldest' | 'newest') {
    super();
  }

  protected async act(world: SessionsWorld): Promise<void> {
    // Another session stays live, so that a logout that ends the wrong one shows.
    while (world.live.length < 2) await world.login(false);
    const live = world.live;
    const session = this.which === 'oldest' ? live[0]! : live.at(-1)!;
    await world.logout(session, `the ${this.which} of ${live.length} live sessions`);
  }

  toString(): string {
    return `logout(${this.which})`;
  }
}

class Replay extends StepCommand<SessionsWorld> {
  constructor(readonly i: number) {
    super();
  }

  protected async act(world: SessionsWorld): Promise<void> {
    await world.replay(this.i);
  }

  toString(): string {
    return `replay(${this.i})`;
  }
}

export const MAX_SESSION_COMMANDS = 6;

export function sessionsSpec(env: StatefulEnv, d: SessionsDiscovery, notes: Notes): StatefulSpec<SessionsWorld> {
  return {
    key: 'stateful-credentials',
    requirements: CREDENTIAL_REQUIREMENTS,
    command: fc.oneof(
      { weight: 2, arbitrary: fc.boolean().map((chosen) => new Login(chosen)) },
      { weight: 3, arbitrary: fc.tuple(fc.nat(), fc.constantFrom<Tamper>(...TAMPERS)).map(([i, how]) => new TamperCookie(i, how)) },
      { weight: 3, arbitrary: fc.constantFrom<'oldest' | 'newest'>('oldest', 'newest').map((which) => new Logout(which)) },
      { weight: 2, arbitrary: fc.nat().map((i) => new Replay(i)) },
    ),
    maxCommands: MAX_SESSION_COMMANDS,
    requestsPerRun: MAX_SESSION_COMMANDS * 10,
    notes,
    open: async (judge) => new SessionsWorld(env, judge, notes, d),
    finish: async () => undefined,
    close: (world) => world.close(),
  };
}

export function sessionsProperty(env: StatefulEnv, d: SessionsDiscovery, notes: Notes) {
  return statefulProperty(sessionsSpec(env, d, notes));
}
