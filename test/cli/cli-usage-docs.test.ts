import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { parse } from 'yaml';
import { builtinRules } from '../../rules/index.js';
import { loadConfig } from '../../src/config/load.js';
import { CLI, CLI_NODE, removeScratch, runCli, scratchDir, writeFiles } from '../helpers/cli.js';
import { repoPath } from '../helpers/paths.js';
import { requireTool } from '../helpers/tools.js';

/* docs/usage.md is checked against the tool: its option table, its config examples, its hook script. */
const usage = fs.readFileSync(repoPath('docs', 'usage.md'), 'utf8');
const scratch = scratchDir('usage-docs');
after(() => removeScratch(scratch));

/** Fenced blocks of a language, with the HTML comment just before each, if any. */
function blocks(language: string): { marker: string | undefined; code: string }[] {
  const out: { marker: string | undefined; code: string }[] = [];
  const fence = new RegExp(`(?:<!-- ([^>]*?) -->\\n)?\`\`\`${language}\\n([\\s\\S]*?)\`\`\`\\n`, 'g');
  for (const match of usage.matchAll(fence)) out.push({ marker: match[1], code: match[2] as string });
  return out;
}

describe('docs/usage.md', () => {
  it('documents every option of tune-lint --help, and no other', () => {
    const help = runCli(['--help'], { cwd: scratch }).stdout;
    const fromHelp = new Set(
      [...help.matchAll(/^ {2}(?:-\w, )?(--[a-z-]+)/gm)].map((match) => match[1] as string).filter((flag) => flag !== '--help'),
    );
    const section = usage.slice(usage.indexOf('## Command line'), usage.indexOf('## Paths, discovery'));
    const fromDocs = new Set([...section.matchAll(/^\| `(?:-\w, )?(--[a-z-]+)/gm)].map((match) => match[1] as string));
    assert.deepEqual([...fromDocs].sort(), [...fromHelp].sort());
  });

  it('every .tune-lint.yaml example loads', async () => {
    const examples = blocks('yaml').filter((block) => block.marker === 'tune-lint config');
    assert.ok(examples.length >= 2);
    for (const [index, example] of examples.entries()) {
      const file = path.join(scratch, `example-${index}`, '.tune-lint.yaml');
      writeFiles(path.dirname(file), { '.tune-lint.yaml': example.code });
      await loadConfig(file, builtinRules, scratch);
    }
  });

  it('the pre-commit examples use hooks that .pre-commit-hooks.yaml defines', () => {
    const ids = new Set((parse(fs.readFileSync(repoPath('.pre-commit-hooks.yaml'), 'utf8')) as { id: string }[]).map((hook) => hook.id));
    const configs = blocks('yaml').filter((block) => block.code.startsWith('repos:'));
    assert.ok(configs.length >= 2);
    for (const config of configs) {
      const parsed = parse(config.code) as { repos: { hooks: { id: string }[] }[] };
      for (const hook of parsed.repos.flatMap((repo) => repo.hooks)) assert.ok(ids.has(hook.id), hook.id);
    }
  });

  it('the plain git hook lints what is staged, not the working tree', (t) => {
    const git = requireTool(t, 'git');
    if (git === undefined) return;
    const hook = blocks('sh').find((block) => block.marker === 'git hook');
    assert.ok(hook !== undefined);
    const repo = path.join(scratch, 'hook-repo');
    writeFiles(repo, {
      '.tune-lint.yaml': 'host: { ram: 500M, perChild: 20M }\n',
      'etc/apache2/apache2.conf': 'LoadModule mpm_prefork_module m.so\nLoadModule php_module libphp.so\nMaxRequestWorkers 150\n',
      'hook.sh': hook.code,
    });
    const env = { ...process.env, TUNE_LINT: `${CLI_NODE} ${CLI}`, GIT_CONFIG_NOSYSTEM: '1', HOME: scratch };
    const run = (command: string, args: readonly string[]) => spawnSync(command, args, { cwd: repo, env, encoding: 'utf8' });
    assert.equal(run(git, ['init', '-q']).status, 0);
    assert.equal(run(git, ['add', '.tune-lint.yaml', 'etc']).status, 0);
    fs.writeFileSync(
      path.join(repo, 'etc/apache2/apache2.conf'),
      'LoadModule mpm_prefork_module m.so\nLoadModule php_module libphp.so\nMaxRequestWorkers 10\n',
    );
    const staged = run('sh', ['hook.sh']);
    assert.equal(staged.status, 1, `${staged.stdout}${staged.stderr}`);
    assert.match(staged.stdout, /MaxRequestWorkers 150 x 20 MiB = 2.9 GiB/);
    assert.equal(run(git, ['add', 'etc']).status, 0);
    const fixed = run('sh', ['hook.sh']);
    assert.equal(fixed.status, 0, `${fixed.stdout}${fixed.stderr}`);
  });
});
