/**
 * The readable form of a dump: each section of the JSON as an indented
 * block, scalars inline, so `tune-lint dump` reads like `apache2 -S` output
 * without a second data model to keep in step with the JSON.
 */
export function formatDumpText(dump: Record<string, unknown>): string {
  const out: string[] = [];
  for (const [key, value] of Object.entries(dump)) {
    if (key === 'version') continue;
    if (value === null || typeof value !== 'object') {
      out.push(`${label(key)}: ${scalar(value)}`);
      continue;
    }
    out.push(`${label(key)}:`);
    block(value, '  ', out);
  }
  return `${out.join('\n')}\n`;
}

function block(value: object, indent: string, out: string[]): void {
  if (Array.isArray(value)) {
    if (value.length === 0) out.push(`${indent}(none)`);
    for (const item of value) {
      if (item !== null && typeof item === 'object') out.push(`${indent}- ${inline(item as Record<string, unknown>)}`);
      else out.push(`${indent}- ${scalar(item)}`);
    }
    return;
  }
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) out.push(`${indent}(none)`);
  for (const [key, child] of entries) {
    if (child !== null && typeof child === 'object' && !isFlat(child)) {
      out.push(`${indent}${key}:`);
      block(child, `${indent}  `, out);
    } else {
      out.push(`${indent}${key}: ${child !== null && typeof child === 'object' ? inline(child as Record<string, unknown>) : scalar(child)}`);
    }
  }
}

function isFlat(value: object): boolean {
  return !Array.isArray(value) && Object.values(value).every((child) => child === null || typeof child !== 'object' || Array.isArray(child));
}

function inline(item: Record<string, unknown>): string {
  const where = typeof item['file'] === 'string' && typeof item['line'] === 'number' ? ` (${item['file']}:${item['line']})` : '';
  const parts = Object.entries(item)
    .filter(([key]) => key !== 'file' && key !== 'line')
    .map(([key, value]) => `${key}=${Array.isArray(value) ? value.join(' > ') : value !== null && typeof value === 'object' ? JSON.stringify(value) : scalar(value)}`);
  return `${parts.join(' ')}${where}`;
}

function scalar(value: unknown): string {
  return value === null || value === undefined ? '-' : String(value);
}

function label(key: string): string {
  return key.replace(/([A-Z])/g, ' $1').toLowerCase();
}
