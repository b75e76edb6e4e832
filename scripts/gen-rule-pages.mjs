#!/usr/bin/env node
// Writes the parts of each rule's page (docs/rules/<ID>.md) that its metadata
// holds, so they are typed once: the front matter, the title, and the Options
// section, a table of the options the rule declares in meta.options (run
// after `npm run build`). The rest of the page is prose, kept as written.
// `--check` exits 1 when a page is stale.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeOrCheck } from './generated-file.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { builtinRules } = await import(join(root, 'dist', 'rules', 'index.js'));

/** How the Options table names each option type (src/engine/types.ts, OptionType). */
const TYPE_WORDS = { integer: 'integer', number: 'number', share: 'share (0-1]', size: 'size', seconds: 'seconds', names: 'list of names' };

function frontMatter(meta) {
  const fields = [
    ['id', meta.id],
    ['name', meta.name],
    ['language', meta.language],
    ['category', meta.category],
    ['severity', meta.defaultSeverity],
    ...(meta.fix === undefined ? [] : [['fix', meta.fix]]),
  ];
  return ['---', ...fields.map(([key, value]) => `${key}: ${value}`), '---'].join('\n');
}

function optionsSection(meta) {
  const options = Object.entries(meta.options ?? {});
  if (options.length === 0) return '## Options\n\nNone.\n';
  const shown = (value) => (Array.isArray(value) ? `[${value.join(', ')}]` : String(value));
  const rows = options.map(
    ([key, spec]) => `| \`${key}\` | ${TYPE_WORDS[spec.type]} | \`${shown(spec.default)}\` | ${spec.description.replaceAll('|', '\\|')} |`,
  );
  return [
    '## Options',
    '',
    "<!-- Generated from the rule's meta.options by scripts/gen-rule-pages.mjs: run `npm run docs`. -->",
    '',
    '| option | type | default | meaning |',
    '|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}

let failed = false;
for (const { meta } of builtinRules) {
  const target = join(root, 'docs', 'rules', `${meta.id}.md`);
  let text;
  try {
    text = readFileSync(target, 'utf8');
  } catch {
    console.error(`${target} is missing: every rule has a page (test/rules/conventions.test.ts)`);
    failed = true;
    continue;
  }
  const body = text.replace(/^---\n[\s\S]*?\n---\n/, '');
  const titled = body.replace(/^\s*# .*\n/, `\n# ${meta.id}: ${meta.description}\n`);
  const page = titled.replace(/## Options\n[\s\S]*?(?=\n## )/, optionsSection(meta));
  writeOrCheck(target, `${frontMatter(meta)}\n${page}`, 'npm run docs');
}
if (failed) process.exit(1);
