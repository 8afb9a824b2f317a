/**
 * The commands of the credentials check, and the check as a stateful property: log in (plainly, or
 * sending cookies the client made up), try a live session's cookies cut, lengthened or altered,
 * log out the oldest or the newest of the live sessions while another one stays, and try the
 * cookie of a session that ended earlier again after a later login.
 */
import fc from 'fast-check';
import { CREDENTIAL_REQUIREMENTS } from '../../catalogue/requirements.js';
import { TAMPERS, type Tamper } from './credentials.js';
import { Command, statefulProperty } from './property.js';
import { SessionsWorld, type SessionsDiscovery } from './sessions.js';
import type { StatefulEnv } from './world.js';

type SessionsCommand = Command<SessionsWorld>;

const login = (chosen: boolean): SessionsCommand =>
  new Command(`login(${chosen ? 'with a chosen cookie' : 'plain'})`, async (world) => void (await world.login(chosen)));

const tamper = (i: number, how: Tamper): SessionsCommand => new Command(`tamper(${i}, ${how})`, (world) => world.tamper(i, how));

const logout = (which: 'oldest' | 'newest'): SessionsCommand => new Command(`logout(${which})`, (world) => world.logout(which));

const replay = (i: number): SessionsCommand => new Command(`replay(${i})`, (world) => world.replay(i));

export const MAX_SESSION_COMMANDS = 6;

export function sessionsProperty(env: StatefulEnv, d: SessionsDiscovery) {
  return statefulProperty({
    key: 'stateful-credentials',
    requirements: CREDENTIAL_REQUIREMENTS,
    command: fc.oneof(
      { weight: 2, arbitrary: fc.boolean().map(login) },
      { weight: 3, arbitrary: fc.tuple(fc.nat(), fc.constantFrom<Tamper>(...TAMPERS)).map(([i, how]) => tamper(i, how)) },
      { weight: 3, arbitrary: fc.constantFrom<'oldest' | 'newest'>('oldest', 'newest').map(logout) },
      { weight: 2, arbitrary: fc.nat().map(replay) },
    ),
    maxCommands: MAX_SESSION_COMMANDS,
    requestsPerRun: MAX_SESSION_COMMANDS * 10,
    open: async (judge, notes) => new SessionsWorld(env, judge, notes, d),
    finish: async () => undefined,
    close: (world) => world.close(),
  });
}
