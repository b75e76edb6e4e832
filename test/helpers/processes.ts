import * as fs from 'node:fs';
import * as net from 'node:net';

/** A TCP port on 127.0.0.1 that nothing listens on right now, for a server a test starts. */
export async function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** PIDs of a process's living children, from /proc (PPid = parent; zombies left out). */
export function childrenOf(parent: number): number[] {
  const children: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const status = fs.readFileSync(`/proc/${entry}/status`, 'utf8');
      if (Number(/^PPid:\s+(\d+)$/m.exec(status)?.[1]) === parent && !/^State:\s+Z/m.test(status)) children.push(Number(entry));
    } catch {
      continue;
    }
  }
  return children;
}

/** Runs `work` over the items at most `limit` at a time (each one starts a server or a tool), results in item order. */
export async function mapLimited<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T);
    }
  });
  await Promise.all(workers);
  return results;
}
