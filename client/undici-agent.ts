/**
 * undici's Agent, loaded from its own module: the package's index loads every part of undici
 * (fetch, WebSocket, caches, mocks) where the client uses this one class. That cost about 0.1
 * CPU-s in each thread of every run, which a fleet or a CI job starting many runs pays each time.
 */
import AgentClass from 'undici/lib/dispatcher/agent.js';

export const Agent = AgentClass;
export type Agent = InstanceType<typeof AgentClass>;
