import { appendTo } from '../../util/arrays.js';
import type { MycnfConfig, MycnfOptionUse } from './model.js';

/** Handlers keyed by the option's name as the server reads it (`key_buffer_size`); `*` takes every one. */
export interface MycnfVisitors {
  readonly option?: Readonly<Record<string, (use: MycnfOptionUse) => void>>;
}

/** Hands every option line the server reads, in read order, to the visitors of the rules that registered for its name (and for `*`). */
export function dispatchMycnf(config: MycnfConfig, visitors: readonly MycnfVisitors[]): void {
  const handlers = new Map<string, ((use: never) => void)[]>();
  for (const visitor of visitors) for (const [name, handler] of Object.entries(visitor.option ?? {})) appendTo(handlers, name, handler);
  if (handlers.size === 0) return;
  const every = handlers.get('*') ?? NO_HANDLERS;
  for (const use of config.uses) {
    for (const handler of handlers.get(use.name.key) ?? NO_HANDLERS) (handler as (u: typeof use) => void)(use);
    for (const handler of every) (handler as (u: typeof use) => void)(use);
  }
}

/** Shared by every line without handlers of its own: one empty list, not one per line. */
const NO_HANDLERS: readonly ((use: never) => void)[] = [];
