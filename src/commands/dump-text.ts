import { LazyList } from '../util/streamed-output.js';

/**
 * The readable form of a dump: each section of the JSON as an indented
 * block, scalars inline, so `tune-lint dump` reads like `apache2 -S` output
 * without a second data model to keep in step with the JSON. Line by line,
 * the lists made as they are written (see LazyList).
 */
export function* dumpTextLines(dump: Record<string, unknown>): Generator<string> {
  for (const [key, value] of Object.entries(dump)) {
    if (key === 'version') continue;
    if (value === null || typeof value !== 'object') {
      yield `${label(key)}: ${scalar(value)}`;
      continue;
    }
    yield `${label(key)}:`;
    yield* block(value, '  ');
  }
}

function* block(value: object, indent: string): Generator<string> {
  if (Array.isArray(value) || value instanceof LazyList) {
    let none = true;
    for (const item of value as Iterable<unknown>) {
      none = false;
      if (item !== null && typeof item === 'object') yield `${indent}- ${inline(item as Record<string, unknown>)}`;
      else yield `${indent}- ${scalar(item)}`;
    }
    if (none) yield `${indent}(none)`;
    return;
  }
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) yield `${indent}(none)`;
  for (const [key, child] of entries) {
    if (child !== null && typeof child === 'object' && !isFlat(child)) {
      yield `${indent}${key}:`;
      yield* block(child, `${indent}  `);
    } else {
      yield `${indent}${key}: ${child !== null && typeof child === 'object' ? inline(child as Record<string, unknown>) : scalar(child)}`;
    }
  }
}

function isFlat(value: object): boolean {
  return (
    !Array.isArray(value) && Object.values(value).every((child) => child === null || typeof child !== 'object' || Array.isArray(child))
  );
}

function inline(item: Record<string, unknown>): string {
  const where = typeof item.file === 'string' && typeof item.line === 'number' ? ` (${item.file}:${item.line})` : '';
  const parts = Object.entries(item)
    .filter(([key]) => key !== 'file' && key !== 'line')
    .map(
      ([key, value]) =>
        `${key}=${Array.isArray(value) ? value.join(' > ') : value !== null && typeof value === 'object' ? JSON.stringify(value) : scalar(value)}`,
    );
  return `${parts.join(' ')}${where}`;
}

function scalar(value: unknown): string {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : '-';
}

function label(key: string): string {
  return key.replace(/([A-Z])/g, ' $1').toLowerCase();
}
