#!/usr/bin/env node
// Writes schema/tune-lint.schema.json, the JSON Schema of .tune-lint.yaml for
// editors, from the loader's tables and the rules' metadata (run after
// `npm run build`). `--check` exits 1 when it is stale.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeOrCheck } from './generated-file.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { builtinRules } = await import(join(root, 'dist', 'rules', 'index.js'));
const { configSchema } = await import(join(root, 'dist', 'src', 'config', 'schema.js'));
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
writeOrCheck(
  join(root, 'schema', 'tune-lint.schema.json'),
  `${JSON.stringify(configSchema(builtinRules, version), null, 2)}\n`,
  'npm run docs',
);
