import type { ApacheConfig } from '../languages/apache/model.js';
import type { PoolUsage } from '../languages/phpfpm/consumption.js';

/**
 * Where an Apache config hands requests to FastCGI: the socket path of
 * `proxy:unix:/run/php/php8.2-fpm.sock|fcgi://localhost`, or `host:port` of
 * `fcgi://127.0.0.1:9000/` and `proxy:fcgi://127.0.0.1:9000`, as php-fpm's `listen` writes them.
 */
function handOffTargets(config: ApacheConfig): Set<string> {
  const targets = new Set<string>();
  for (const use of [...config.named('sethandler'), ...config.named('proxypass'), ...config.named('proxypassmatch')]) {
    for (const arg of use.args) {
      const socket = /^proxy:unix:([^|]+)\|fcgi:/i.exec(arg)?.[1];
      if (socket !== undefined) targets.add(socket);
      // `fcgi://127.0.0.1:9000/...` (ProxyPass) or `proxy:fcgi://127.0.0.1:9000` (SetHandler).
      const address = /^(?:proxy:)?fcgi:\/\/([^/]+)/i.exec(arg)?.[1];
      if (socket === undefined && address !== undefined) targets.add(address.replace(/^localhost:/, '127.0.0.1:'));
    }
  }
  return targets;
}

/** A pool's `listen` as Apache names it: a path, `127.0.0.1:9000` for `9000` or `localhost:9000`. */
function listenKey(listen: string): string {
  if (listen.startsWith('/')) return listen;
  if (/^\d+$/.test(listen)) return `127.0.0.1:${listen}`;
  return listen.replace(/^localhost:/, '127.0.0.1:');
}

/** Whether an Apache config passes requests to the pool's socket or address (the pool's `listen`). */
export function handsOffTo(config: ApacheConfig, pool: PoolUsage): boolean {
  return pool.listen !== undefined && handOffTargets(config).has(listenKey(pool.listen));
}

/** Whether two pools listen on the same socket or address, so that the same workers feed both. */
export function samePoolSocket(a: PoolUsage, b: PoolUsage): boolean {
  return a.listen !== undefined && b.listen !== undefined && listenKey(a.listen) === listenKey(b.listen);
}
