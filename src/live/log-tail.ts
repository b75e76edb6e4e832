import * as fs from 'node:fs';

/**
 * The last `bytes` of a log file. Only a regular file is read: it is opened
 * without blocking (a FIFO named as the log would otherwise wait for a writer
 * forever) and without becoming a controlling terminal. `owners`, when
 * given, are the uids the file may belong to.
 */
export async function readTail(file: string, bytes: number, owners?: readonly number[]): Promise<string> {
  const handle = await fs.promises.open(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK | fs.constants.O_NOCTTY);
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new Error('not a regular file');
    if (owners !== undefined && !owners.includes(stat.uid)) throw new Error(`it belongs to uid ${stat.uid}, not to the server or root`);
    const length = Math.min(stat.size, bytes);
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buffer, 0, length, stat.size - length);
    return buffer.toString('latin1', 0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** `work`, or a rejection after `milliseconds`: a read of a hung network mount is given up. */
export function withTimeout<T>(work: Promise<T>, milliseconds: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${milliseconds / 1000} s`)), milliseconds);
    timer.unref();
  });
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}
