/**
 * One status line kept at the bottom of a terminal, apart from every other output: while it is
 * shown, any write to the watched streams (the run's verdict lines, the interrupt message, a
 * warning of Node's or of vitest's) first erases it, and it is drawn again after the message.
 */

/** The part of a stream the status line uses: a terminal's stdout, or a fake in a test. */
export interface TerminalStream {
  write(chunk: string | Uint8Array, ...rest: unknown[]): boolean;
  columns?: number;
}

const ERASE = '\r\x1b[2K';
const DEFAULT_COLUMNS = 120;

export class StatusLine {
  private text = '';
  /** What the terminal shows now, if anything. */
  private shown?: string;
  private closed = false;
  /** The last write of a message ended its line: a redraw would not cut into it. */
  private atLineStart = true;
  private redrawQueued = false;
  private readonly raw: (text: string) => void;
  private readonly restores: Array<() => void> = [];

  constructor(
    private readonly terminal: TerminalStream,
    others: readonly TerminalStream[] = [],
  ) {
    const own = terminal.write;
    this.raw = (text) => void own.call(terminal, text);
    for (const stream of [terminal, ...others]) {
      const original = stream.write;
      stream.write = (chunk: string | Uint8Array, ...rest: unknown[]): boolean => {
        const visible = withoutEscapes(chunk);
        // A bare escape sequence (vitest hiding the cursor) leaves the line as it is.
        if (visible === '') return original.call(stream, chunk, ...rest);
        this.erase();
        const ok = original.call(stream, chunk, ...rest);
        this.atLineStart = visible.endsWith('\n');
        this.queueRedraw();
        return ok;
      };
      this.restores.push(() => {
        stream.write = original;
      });
    }
  }

  /** Shows `text` as the status, cut to the terminal's width. */
  show(text: string): void {
    if (this.closed) return;
    this.text = text;
    this.draw();
  }

  /** Erases the line and gives the streams back. */
  close(): void {
    if (this.closed) return;
    this.erase();
    this.closed = true;
    for (const restore of this.restores) restore();
  }

  private draw(): void {
    if (this.closed || this.text === '' || !this.atLineStart) return;
    const line = fit(this.text, (this.terminal.columns ?? DEFAULT_COLUMNS) - 1);
    if (line === this.shown) return;
    this.raw(`${ERASE}${line}`);
    this.shown = line;
  }

  private erase(): void {
    if (this.shown === undefined) return;
    this.raw(ERASE);
    this.shown = undefined;
  }

  /**
   * After the writes of this turn: a message followed at once by process.exit (a second Ctrl-C)
   * leaves no status line under it.
   */
  private queueRedraw(): void {
    if (this.redrawQueued) return;
    this.redrawQueued = true;
    queueMicrotask(() => {
      this.redrawQueued = false;
      this.draw();
    });
  }
}

/** The text a write shows, without its escape sequences. */
function withoutEscapes(chunk: string | Uint8Array): string {
  const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
  return text.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');
}

/** `text` in at most `width` characters, an ellipsis where it was cut. */
export function fit(text: string, width: number): string {
  if (text.length <= width) return text;
  return width <= 1 ? text.slice(0, Math.max(0, width)) : `${text.slice(0, width - 1)}…`;
}

/** CI set to anything but empty, "false" or "0": the output is a log, not a terminal. */
export function ciSet(env: NodeJS.ProcessEnv): boolean {
  const ci = env.CI?.trim().toLowerCase();
  return ci !== undefined && ci !== '' && ci !== 'false' && ci !== '0';
}
