/** Types for the parts of the untyped `tftp` package that the simulator uses. */
declare module 'tftp' {
  import type { EventEmitter } from 'node:events';
  import type { Readable } from 'node:stream';

  export interface ClientOptions {
    host?: string;
    port?: number;
    retries?: number;
    timeout?: number;
    blockSize?: number;
    windowSize?: number;
  }

  export interface GetStream extends Readable {
    abort(error?: string): void;
  }

  export interface Client {
    createGetStream(remote: string, options?: Record<string, unknown>): GetStream;
  }

  export interface ServerOptions {
    host?: string;
    port?: number;
    root?: string;
    denyGET?: boolean;
    denyPUT?: boolean;
  }

  export interface Server extends EventEmitter {
    host: string;
    port: number;
    listen(): void;
    close(): void;
  }

  export function createClient(options?: ClientOptions): Client;
  export function createServer(options?: ServerOptions): Server;

  const tftp: { createClient: typeof createClient; createServer: typeof createServer };
  export default tftp;
}
