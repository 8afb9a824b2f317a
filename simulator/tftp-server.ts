/**
 * A small TFTP server (read-only) on 127.0.0.1, for tests and for demonstrating DownloadViaTFTP
 * against the simulator. The `tftp` package treats port 0 as "use 69", so a free UDP port is
 * found first.
 */
import { createSocket } from 'node:dgram';
import tftp from 'tftp';

export interface TftpServerHandle {
  host: string;
  port: number;
  close(): Promise<void>;
}

function freeUdpPort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = createSocket('udp4');
    socket.once('error', reject);
    socket.bind(0, host, () => {
      const { port } = socket.address();
      socket.close(() => resolve(port));
    });
  });
}

export async function startTftpServer(options: { root: string; port?: number }): Promise<TftpServerHandle> {
  const host = '127.0.0.1';
  const port = options.port && options.port > 0 ? options.port : await freeUdpPort(host);
  const server = tftp.createServer({ host, port, root: options.root, denyPUT: true });
  // A missing file or a client that goes away surfaces as an error on the request; without a
  // listener it would crash the process.
  server.on('request', (req: NodeJS.EventEmitter) => {
    req.on('error', () => {});
  });
  await new Promise<void>((resolve, reject) => {
    server.once('listening', () => resolve());
    server.once('error', reject);
    server.listen();
  });
  server.on('error', () => {});
  let closed = false;
  return {
    host,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        if (closed) return resolve();
        closed = true;
        server.once('close', () => resolve());
        server.close();
      }),
  };
}
