import { fstatSync, writeSync } from 'node:fs';

/**
 * Standard output and error written with write(2) on the descriptors.
 * `process.stdout` and `process.stderr` are made on first use, and making one
 * loads Node's stream modules (and `net` for a pipe or a terminal): about 8 ms,
 * a tenth of a lint of the stock Debian configs (docs/performance.md). The
 * writes are synchronous, as Node's own are for files and pipes on Linux.
 */
class Output {
  /** Set once the descriptor refused a write for now (a non-blocking pipe): the rest goes through Node's stream, in order. */
  private stream: NodeJS.WriteStream | undefined = undefined;
  /** The reader went away (`tune-lint ... | head`): no error of ours, the run ends with its own exit code. */
  private closed = false;

  constructor(
    private readonly fd: 1 | 2,
    private readonly nodeStream: () => NodeJS.WriteStream,
  ) {}

  write(data: string | Uint8Array): void {
    if (this.closed) return;
    if (this.stream !== undefined) {
      this.stream.write(data);
      return;
    }
    const bytes = typeof data === 'string' ? Buffer.from(data) : data;
    let offset = 0;
    while (offset < bytes.length) {
      try {
        offset += writeSync(this.fd, bytes, offset);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EPIPE') {
          this.closed = true;
          return;
        }
        if (code !== 'EAGAIN') throw error;
        this.stream = this.nodeStream();
        this.stream.on('error', (streamError: NodeJS.ErrnoException) => {
          if (streamError.code !== 'EPIPE') throw streamError;
        });
        this.stream.write(bytes.subarray(offset));
        return;
      }
    }
  }

  /** Whether everything written has reached the descriptor (nothing waits in Node's stream). */
  get drained(): boolean {
    return this.stream === undefined || this.stream.writableLength === 0;
  }

  /**
   * Whether a person is likely reading: a terminal. Most runs write to a file
   * or a pipe, which fstat tells apart without loading `node:tty` (and `net`).
   */
  async isTerminal(): Promise<boolean> {
    let characterDevice: boolean;
    try {
      characterDevice = fstatSync(this.fd).isCharacterDevice();
    } catch {
      return false;
    }
    return characterDevice && (await import('node:tty')).isatty(this.fd);
  }
}

export const stdout = new Output(1, () => process.stdout);
export const stderr = new Output(2, () => process.stderr);
