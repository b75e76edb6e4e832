import { builtinRules } from '../../rules/index.js';
import { docsUrl } from '../docs-url.js';
import { readVersion } from './version.js';
import { stdout } from '../util/stdio.js';

/** `tune-lint rules`: the catalogue as a table (id, name, default severity, fix kind, preset, description), or as JSON. */
export async function runRules(options: { json: boolean }): Promise<number> {
  const version = readVersion();
  const rules = builtinRules.map((rule) => rule.meta);
  if (options.json) {
    const list = rules.map((meta) => ({
      id: meta.id,
      name: meta.name,
      language: meta.language,
      category: meta.category,
      description: meta.description,
      defaultSeverity: meta.defaultSeverity,
      recommended: meta.recommended,
      fix: meta.fix ?? null,
      needsHost: meta.needsHost === true,
      docs: docsUrl(version, meta.id),
    }));
    stdout.write(`${JSON.stringify({ version: 1, rules: list }, null, 2)}\n`);
    return 0;
  }
  const rows = [
    ['ID', 'NAME', 'SEVERITY', 'FIX', 'PRESET', 'DESCRIPTION'],
    ...rules.map((meta) => [
      meta.id,
      meta.name,
      meta.defaultSeverity,
      meta.fix ?? '-',
      meta.recommended ? 'recommended' : 'strict',
      meta.description,
    ]),
  ];
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] as string).length))) ?? [];
  const lines = rows.map((row) =>
    row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column] as number))).join('  '),
  );
  lines.push('', `Each rule's page: ${docsUrl(version, '<ID>')}; rules take an id or a name in .tune-lint.yaml and --rule.`);
  stdout.write(`${lines.join('\n')}\n`);
  return 0;
}
