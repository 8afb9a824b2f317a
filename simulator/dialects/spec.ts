/**
 * The spec's own server as a dialect: the pipeline of routes.ts with the `sid` sessions of
 * sessions.ts, the fidelity faults answered before it, and the event channel on /subscribe only.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { Context } from '../context.js';
import { rawErrorResponse, refuseSocket } from '../envelope.js';
import { answerFidelityFault } from '../fidelity-answers.js';
import { targetPath } from '../route-parse.js';
import { handleRequest, type SpecContext } from '../routes.js';
import { Sessions } from '../sessions.js';
import { inTurn, type DialectServer } from './dialect.js';

export class SpecServer implements DialectServer {
  private readonly ctx: SpecContext;
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });

  constructor(ctx: Context) {
    const sessions = new Sessions(ctx.user, ctx.password, ctx.faults);
    // Logout closes the session's event sockets (field servers leave them open, as does this fault).
    if (!ctx.faults.has('logout-keeps-socket')) sessions.onEnd((sid) => ctx.hub.closeSession(sid));
    this.ctx = { ...ctx, sessions };
  }

  handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { faults, sessions } = this.ctx;
    if (answerFidelityFault(faults, req, res, () => sessions.fromCookieHeader(req.headers.cookie) !== undefined)) return Promise.resolve();
    return inTurn(this.ctx, () => handleRequest(this.ctx, req, res));
  }

  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const { faults, sessions, hub } = this.ctx;
    try {
      if (targetPath(req.url) !== '/subscribe') {
        refuseSocket(socket, rawErrorResponse(404, 'WebSocket is served on /subscribe only', faults));
        return;
      }
      // Same rule as every other route: no session, no handshake.
      const sid = sessions.handshakeSession(req.headers.cookie);
      if (!sid && !faults.has('subscribe-without-login')) {
        refuseSocket(socket, rawErrorResponse(401, 'Unauthorized: log in with POST /login first', faults));
        return;
      }
      this.wss.handleUpgrade(req, socket, head, (ws) => {
        ws.on('error', () => {});
        hub.attach(ws, sid);
      });
    } catch (e) {
      this.ctx.log(`internal error on upgrade ${req.url}: ${(e as Error)?.stack ?? String(e)}`);
      refuseSocket(socket, rawErrorResponse(500, 'Internal error', faults));
    }
  }

  close(): void {
    this.wss.close();
  }
}
