import { builtinRules } from '../../rules/index.js';
import { docsUrl } from '../docs-url.js';
import { readVersion } from './version.js';

/** `tune-lint rules`: the catalogue, one rule per line, or as JSON. */
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
    process.stdout.write(`${JSON.stringify({ version: 1, rules: list }, null, 2)}\n`);
    return 0;
  }
  const nameWidth = Math.max(...rules.map((meta) => meta.name.length));
  for (const meta of rules) {
    const flags = [meta.defaultSeverity.padEnd(5), (meta.fix ?? '-').padEnd(4), meta.recommended ? 'rec' : '   '].join(' ');
    process.stdout.write(`${meta.id}  ${meta.name.padEnd(nameWidth)}  ${flags}  ${meta.description}\n`);
  }
  return 0;
}
