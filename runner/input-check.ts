/**
 * The user's inputs checked against the target before any test: a writable that does not exist, or
 * a TFTP source that does not answer, is the user's mistake to correct, not a verdict about the BMC.
 */
import type { BmcClient } from '../client/http.js';
import type { TftpSource, WritableAttribute } from './config.js';
import { UsageError } from '../client/usage-error.js';

/** Each writable must be there: GET {path}/attr/{name} answering 404 means the path or name is wrong. */
export async function checkWritables(
  client: BmcClient,
  writable: readonly WritableAttribute[],
  /** The target profile file, when one was given: its "writable" list is one of the sources. */
  profileFile?: string,
): Promise<void> {
  const missing: string[] = [];
  for (const w of writable) {
    const res = await client.get(`${w.path}/attr/${w.name}`);
    if (res.status === 404) missing.push(`${w.path}:${w.name}`);
  }
  if (missing.length === 0) return;
  const which = missing.length === 1 ? `The writable ${missing[0]} does not exist` : `The writables ${missing.join(', ')} do not exist`;
  throw new UsageError(
    `${which} on the target (GET {path}/attr/{name} answers 404): check --writable, or the "writable" list of ${profileFile ?? 'the target profile'}.`,
  );
}

/** A TFTP read request for the image: the server must answer (with the file, or with an error packet). */
export async function checkTftpSource(tftp: TftpSource, withinMs = 2_000): Promise<void> {
  const { host, port } = hostAndPort(tftp.server);
  // Loaded here: most runs name no TFTP server, and every run would pay for the module.
  const { createClient } = await import('tftp');
  const outcome = await new Promise<'answered' | 'no file' | 'silent'>((resolve) => {
    const stream = createClient({ host, port, retries: 1, timeout: withinMs }).createGetStream(tftp.file);
    const timer = setTimeout(() => {
      stream.abort();
      resolve('silent');
    }, withinMs + 500);
    const done = (o: 'answered' | 'no file' | 'silent') => {
      clearTimeout(timer);
      resolve(o);
    };
    // The first data block proves the server and the file: no need to read the whole image.
    stream.once('data', () => {
      stream.abort();
      done('answered');
    });
    stream.once('end', () => done('answered'));
    // No packet came back ("Timed out"), or the server said "File not found"; any other error
    // packet (access, mode) is still an answer from a TFTP server.
    stream.once('error', (err: Error) =>
      done(/timed out/i.test(err.message) ? 'silent' : /file not found/i.test(err.message) ? 'no file' : 'answered'),
    );
  });
  if (outcome === 'silent')
    throw new UsageError(`The TFTP server ${tftp.server} does not answer a read request within ${withinMs / 1000} s: check --tftp-server.`);
  if (outcome === 'no file') throw new UsageError(`The TFTP server ${tftp.server} has no file ${tftp.file}: check --tftp-file.`);
}

function hostAndPort(server: string): { host: string; port: number } {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(server);
  if (bracketed) return { host: bracketed[1]!, port: Number(bracketed[2] ?? 69) };
  const [host, port] = server.split(':');
  return { host: host === 'localhost' ? '127.0.0.1' : host!, port: Number(port ?? 69) };
}
