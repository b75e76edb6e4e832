import { appendTo } from '../../util/arrays.js';
import type { ApacheConfig } from './model.js';
import type { ApacheDirectiveUse, ApacheSectionUse } from './uses.js';

/** Handlers keyed by lower-case directive or section name; `*` takes every one. */
export interface ApacheVisitors {
  readonly directive?: Readonly<Record<string, (use: ApacheDirectiveUse) => void>>;
  readonly section?: Readonly<Record<string, (use: ApacheSectionUse) => void>>;
}

/**
 * Hands every directive and section in effect, in read order, to the
 * visitors of the rules that registered for its name (and for `*`).
 */
export function dispatchApache(config: ApacheConfig, visitors: readonly ApacheVisitors[]): void {
  const directiveHandlers = new Map<string, ((use: never) => void)[]>();
  const sectionHandlers = new Map<string, ((use: never) => void)[]>();
  for (const visitor of visitors) {
    for (const [name, handler] of Object.entries(visitor.directive ?? {})) appendTo(directiveHandlers, name, handler);
    for (const [name, handler] of Object.entries(visitor.section ?? {})) appendTo(sectionHandlers, name, handler);
  }
  if (directiveHandlers.size > 0) dispatchDirectives(config.uses, directiveHandlers);
  if (sectionHandlers.size > 0) dispatchSections(config.sections, sectionHandlers);
}

/**
 * Each use to its name's handlers and the handlers of every name. Indexed
 * loops: they run once per line (a quarter of a million lines on 10,000
 * vhosts), mostly before V8 optimises them, and for-of there allocated an
 * iterator and a result object per step (4 of the 45 MB a lint of 1,000
 * vhosts allocated). A function of its own, as the sections' loop is: V8
 * optimises this loop while it runs, and code made for both threw itself
 * away on reaching the second.
 */
function dispatchDirectives(uses: readonly ApacheDirectiveUse[], handlers: ReadonlyMap<string, ((use: never) => void)[]>): void {
  const every = handlers.get('*') ?? NO_HANDLERS;
  // eslint-disable-next-line @typescript-eslint/prefer-for-of -- indexed on purpose, see above
  for (let index = 0; index < uses.length; index++) {
    const use = uses[index] as ApacheDirectiveUse;
    const own = handlers.get(use.name) ?? NO_HANDLERS;
    // eslint-disable-next-line @typescript-eslint/prefer-for-of -- indexed on purpose, see above
    for (let handler = 0; handler < own.length; handler++) (own[handler] as (u: ApacheDirectiveUse) => void)(use);
    // eslint-disable-next-line @typescript-eslint/prefer-for-of -- indexed on purpose, see above
    for (let handler = 0; handler < every.length; handler++) (every[handler] as (u: ApacheDirectiveUse) => void)(use);
  }
}

function dispatchSections(sections: readonly ApacheSectionUse[], handlers: ReadonlyMap<string, ((use: never) => void)[]>): void {
  const every = handlers.get('*') ?? NO_HANDLERS;
  for (const section of sections) {
    for (const handler of handlers.get(section.name) ?? NO_HANDLERS) (handler as (u: ApacheSectionUse) => void)(section);
    for (const handler of every) (handler as (u: ApacheSectionUse) => void)(section);
  }
}

/** Shared by every line without handlers of its own: one empty list, not one per line. */
const NO_HANDLERS: readonly ((use: never) => void)[] = [];
