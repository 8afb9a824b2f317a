/** Faults of authentication of every route, tried for real (positive twins). */
import type { FaultInfo } from './fault-info.js';

export const AUTH_FAULTS = [
  {
    name: 'tampered-cookie-subscribes',
    requirement: 'AUTH-3',
    operator: 'done-without-authority',
    description: 'the WebSocket handshake takes any session cookie of the right shape, live or not, and the socket receives events',
  },
  {
    name: 'ended-cookie-subscribes',
    requirement: 'EP-2',
    operator: 'done-without-authority',
    description: 'logout ends the session for HTTP, but a new WebSocket handshake still takes its cookie and receives events',
  },
  {
    name: 'auth-bypass-delete',
    requirement: 'AUTH-1',
    operator: 'done-without-authority',
    description: 'DELETE of an instance without a session is done',
  },
  {
    name: 'ended-cookie-deletes',
    requirement: 'EP-2',
    operator: 'done-without-authority',
    description: 'logout ends the session for reads and writes, but a DELETE with its cookie is still done',
  },
  {
    name: 'auth-bypass-action',
    requirement: 'AUTH-1',
    operator: 'done-without-authority',
    description: 'POST {path}/action/{method} of a method the object has is called without a session',
  },
  {
    name: 'tampered-cookie-uploads',
    requirement: 'AUTH-2',
    operator: 'done-without-authority',
    description: 'an upload is taken with any session cookie of the right shape, live or not (reads check it)',
  },
  {
    name: 'refused-upload-registers',
    requirement: 'AUTH-2',
    operator: 'partial',
    description: 'an upload without a session is answered 401, but its image was stored first and is registered as a version',
  },
] as const satisfies readonly FaultInfo[];
