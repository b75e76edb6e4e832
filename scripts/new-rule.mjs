#!/usr/bin/env node
// `npm run new-rule -- ID name "description"`: the parts a rule ships as one
// unit, ready to fill in: the module (rules/<family>/<id>-<name>.ts), its page
// (docs/rules/<ID>.md, with the sections the conventions test asks for), a
// good and a bad fixture, and the registry. Until they are filled in, the
// tests say what is missing: the bad fixture's finding (its .expected is
// empty: write it, or run `UPDATE_FIXTURES=1 npm test -- rules/` once the
// rule reports and read what it wrote), the page's examples and references.
//
//   npm run new-rule -- AP2017 listen-twice "The same address is given to Listen twice"
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const registry = join(root, 'dist', 'src', 'languages', 'index.js');
if (!existsSync(registry)) fail('the rule families come from the built registry: run `npm run build` first');
const { builtinLanguages } = await import(registry);
// A family per language, as its definition names it (src/languages/<id>/language.ts), and the host's.
const FAMILIES = Object.fromEntries([
  ...builtinLanguages.map((language) => [language.rules.prefix, { language: language.id, ...language.rules.sample }]),
  ['HO', { language: 'host', fence: 'apache', extension: 'conf', comment: '#' }],
]);
const CATEGORIES = { 1: 'correctness', 2: 'performance', 3: 'security', 4: 'deprecation', 5: 'style' };

const [id, name, description] = process.argv.slice(2);
const usage = 'usage: npm run new-rule -- ID name "description", e.g. AP2017 listen-twice "The same address is given to Listen twice"';
if (id === undefined || name === undefined || description === undefined) fail(usage);
const prefixes = Object.keys(FAMILIES);
const match = new RegExp(`^(${prefixes.join('|')})([1-5])\\d{3}$`).exec(id);
if (match === null)
  fail(
    `${id}: an id is ${prefixes.join(', ')} and four digits, the first its category (1 correctness ... 5 style); TL ids are the tool's own`,
  );
if (!/^[a-z][a-z0-9]*(-[a-z0-9]+)*$/.test(name)) fail(`${name}: a name is kebab-case, like listen-twice`);
if (/\.$/.test(description)) fail('the description is one sentence without a final period');
const family = FAMILIES[match[1]];
const category = CATEGORIES[match[2]];

const module = join(root, 'rules', family.language, `${id.toLowerCase()}-${name}.ts`);
const page = join(root, 'docs', 'rules', `${id}.md`);
const fixtures = join(root, 'fixtures', 'rules', id);
for (const path of [module, page, fixtures]) if (existsSync(path)) fail(`${relative(root, path)} exists already`);

const context =
  family.language === 'host'
    ? "ctx.configs.of('apache'), ctx.configs.first('mycnf') are the configs of the host"
    : 'ctx.config is the config this rule runs on';
writeFileSync(
  module,
  `import { defineRule } from '../../src/engine/define-rule.js';

export default defineRule('${family.language}', {
  meta: {
    id: '${id}',
    name: '${name}',
    category: '${category}',
    description: ${tsString(description)},
    defaultSeverity: 'warn',
    recommended: true,
    // With a fix: fix: 'safe' (keeps what the server does, or repairs what it refuses) or 'tune' (a value from host facts or policy).
    // Options, each read from .tune-lint.yaml, the JSON Schema and the docs' Options table from here, typed into ctx.options:
    //   options: {
    //     threshold: { type: 'integer', default: 10, description: 'a whole number of at least 0' },
    //     ratio: { type: 'number', default: 1.5, description: 'any number' },
    //     share: { type: 'share', default: 0.5, description: 'above 0 and at most 1' },
    //     buffer: { type: 'size', default: '64M', description: 'a size, reaching the rule as bytes' },
    //     timeout: { type: 'seconds', default: 5, description: 'a whole number of seconds' },
    //     modules: { type: 'names', default: ['mod_php'], description: 'a list of strings' },
    //   },
    messages: {
      found: { message: 'what was found; expected what should be there, with the numbers', detail: 'why: the arithmetic, the sources, the server\\'s own words' },
    },
  },
  // Rename _ctx to ctx as you use it: ${context}, and
  // ctx.report({ at, messageId: 'found', data: { ... }, fix: () => edit }) reports what it finds (CONTRIBUTING.md).
  create(_ctx) {
    return {};
  },
});
`,
);

writeFileSync(
  page,
  `---
id: ${id}
name: ${name}
language: ${family.language}
category: ${category}
severity: warn
---

# ${id}: ${description}

## Problematic configuration

\`\`\`${family.fence}
${family.comment} the configuration the rule reports
\`\`\`

## Corrected configuration

\`\`\`${family.fence}
${family.comment} the same configuration as it should be
\`\`\`

## Why

What the server does with the problematic configuration, from its source or its manual, and what it costs.

## Options

None.

## Exceptions

When the finding is not a problem, and how to silence it there.

## References

- the server's documentation or source that shows the behaviour (a URL)
`,
);

mkdirSync(fixtures, { recursive: true });
writeFileSync(join(fixtures, `bad-first.${family.extension}`), `${family.comment} a configuration the rule reports\n`);
writeFileSync(join(fixtures, 'bad-first.expected'), '');
writeFileSync(join(fixtures, `good-first.${family.extension}`), `${family.comment} a configuration the rule accepts\n`);

execFileSync(process.execPath, [join(root, 'scripts', 'gen-registry.mjs')], { stdio: 'inherit' });
console.log(
  [
    `wrote ${relative(root, module)}, ${relative(root, page)} and ${relative(root, fixtures)}/ (bad-first, good-first); the registry lists it.`,
    'Next: the check in create(), the messages, the fixtures and their .expected (and a .patch when the rule fixes),',
    'the page; then `npm run docs` and `npm test -- rules conventions docs-examples`.',
  ].join('\n'),
);

/** A single-quoted TypeScript string literal. */
function tsString(text) {
  return `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
}

function fail(message) {
  console.error(`new-rule: ${message}`);
  process.exit(2);
}
