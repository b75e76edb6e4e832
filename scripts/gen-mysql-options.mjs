#!/usr/bin/env node
// Writes src/languages/mycnf/mysql-options.ts: the option names each MySQL
// series' mysqld takes on its command line (and so in option files), read
// from MySQL's own source at a release:
//
//   node scripts/gen-mysql-options.mjs SOURCE...   (git directories of MySQL source trees)
//
// No MySQL server can be installed here (Debian ships MariaDB), so the source
// is the oracle. The options are the union of
// - the options `mysqld --help --verbose` prints, as mysql-test records them
//   (mysql-test/r/mysqld--help-notwin.result);
// - the options that test filters out (paths, build-specific ones and the
//   plugins it hides: InnoDB, SSL, ...), taken where they are declared:
//   my_long_options in sql/mysqld.cc, every Sys_var in sql/ declared with
//   CMD_LINE(...) (or 5.7's SSL_OPT(...)), and the MYSQL_SYSVAR/MYSQL_THDVAR variables of the plugins
//   mysqld has built in and enabled (InnoDB, X Plugin, ngram) that do not say
//   PLUGIN_VAR_NOCMDOPT, with the plugin's name in front and its own on/off
//   option.
//
// `--check` compares the file with what these trees give, when they are here.
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { wrapWords, writeOrCheck } from './generated-file.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const target = join(root, 'src', 'languages', 'mycnf', 'mysql-options.ts');
const sources = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
if (sources.length === 0) {
  console.error('usage: node scripts/gen-mysql-options.mjs MYSQL_SOURCE_GIT_DIR... [--check]');
  process.exit(2);
}

/** Built-in plugins enabled by default whose variables are options: source files and the name their variables carry. */
const BUILT_IN_PLUGINS = [
  { plugin: 'innodb', files: ['storage/innobase/handler/ha_innodb.cc'] },
  { plugin: 'mysqlx', files: ['plugin/x/src/variables/system_variables.cc', 'plugin/x/src/xpl_plugin.cc'] },
  { plugin: 'ngram', files: ['plugin/fulltext/ngram_parser/plugin_ngram.cc'] },
];

/** Built-in authentication plugins whose names the source builds at run time rather than writes as a literal. */
const NAMED_AT_RUN_TIME = ['mysql_native_password', 'sha256_password', 'caching_sha2_password'];

const git = (dir, args) =>
  execFileSync('git', ['--git-dir', dir, ...args], {
    encoding: 'latin1',
    maxBuffer: 256 * 1024 * 1024,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
const show = (dir, file) => {
  try {
    return git(dir, ['show', `HEAD:${file}`]);
  } catch {
    return undefined;
  }
};
const normalised = (name) => name.replaceAll('-', '_').toLowerCase();

function releaseOf(dir) {
  const text = show(dir, 'MYSQL_VERSION') ?? show(dir, 'VERSION') ?? '';
  const part = (name) => new RegExp(`MYSQL_VERSION_${name}=(\\d+)`).exec(text)?.[1];
  return `${part('MAJOR')}.${part('MINOR')}.${part('PATCH')}`;
}

function helpOptions(dir, names) {
  const help = show(dir, 'mysql-test/r/mysqld--help-notwin.result') ?? '';
  for (const match of help.matchAll(/^ {1,2}(?:-\S, )?--([A-Za-z0-9_-]+)/gm)) names.add(normalised(match[1]));
}

function longOptions(dir, names) {
  const mysqld = show(dir, 'sql/mysqld.cc') ?? '';
  const start = mysqld.indexOf('struct my_option my_long_options[]');
  const table = mysqld.slice(start, mysqld.indexOf('\n};', start));
  for (const match of table.matchAll(/^\s*\{\s*"([A-Za-z0-9_-]+)"/gm)) names.add(normalised(match[1]));
}

function systemVariables(dir, names) {
  const files = git(dir, ['ls-tree', '-r', '--name-only', 'HEAD', 'sql/'])
    .split('\n')
    .filter((file) => file.endsWith('.cc'));
  for (const file of files) {
    const text = show(dir, file) ?? '';
    if (!text.includes('Sys_var_')) continue;
    for (const match of text.matchAll(/\bSys_var_\w+\s+\w+\s*\(\s*"([a-z0-9_]+)"([\s\S]*?)\);/g)) {
      if (/\b(?:CMD_LINE|SSL_OPT)\s*\(/.test(match[2])) names.add(match[1]);
    }
  }
}

function pluginVariables(dir, names) {
  for (const { plugin, files } of BUILT_IN_PLUGINS) {
    let found = false;
    for (const file of files) {
      const text = show(dir, file);
      if (text === undefined) continue;
      for (const match of text.matchAll(/\bMYSQL_(?:SYSVAR|THDVAR)_[A-Z]+\s*\(\s*(\w+)\s*,([\s\S]*?)\);/g)) {
        found = true;
        if (!match[2].includes('PLUGIN_VAR_NOCMDOPT')) names.add(`${plugin}_${match[1]}`);
      }
    }
    if (found) names.add(plugin);
  }
}

/** Every plugin the tree declares (mysql_declare_plugin), lower case: each has an on/off option of its name once mysqld has it. */
function declaredPlugins(dir) {
  const plugins = new Set();
  const files = git(dir, ['grep', '-l', '-e', 'mysql_declare_plugin', '-e', 'STRUCT_FLD(name', 'HEAD', '--', 'sql', 'storage', 'plugin'])
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => line.replace(/^HEAD:/, ''));
  for (const file of files) {
    const text = show(dir, file) ?? '';
    const declaration = /\bMYSQL_[A-Z_]+_PLUGIN\s*,\s*(?:\/\*[^]*?\*\/\s*)?&?[\w:]+\s*,\s*(?:\/\*[^]*?\*\/\s*)?"([A-Za-z0-9_]+)"/g;
    for (const match of text.matchAll(declaration)) plugins.add(normalised(match[1]));
    for (const match of text.matchAll(/\bSTRUCT_FLD\(\s*name\s*,\s*"([A-Za-z0-9_]+)"/g)) plugins.add(normalised(match[1]));
  }
  for (const plugin of NAMED_AT_RUN_TIME) plugins.add(plugin);
  return plugins;
}

const tables = [];
for (const dir of sources) {
  const release = releaseOf(dir);
  const names = new Set();
  helpOptions(dir, names);
  longOptions(dir, names);
  systemVariables(dir, names);
  pluginVariables(dir, names);
  const plugins = declaredPlugins(dir);
  for (const plugin of plugins) names.add(plugin);
  tables.push({ series: release.split('.').slice(0, 2).join('.'), release, names: [...names].sort(), plugins: [...plugins].sort() });
}
tables.sort((a, b) => (a.series < b.series ? -1 : 1));

const lines = [
  `// Generated by scripts/gen-mysql-options.mjs from MySQL ${tables.map((table) => table.release).join(', ')}; do not edit.`,
  '',
  '/**',
  " * The option names (`_` for `-`) each MySQL series' mysqld takes, from the",
  ' * source of the release named: the options `mysqld --help --verbose` lists',
  ' * (mysql-test records them), the declared options and system variables with',
  ' * a command-line form, and the variables of the built-in plugins (InnoDB, X',
  ' * Plugin, ngram) and the on/off option of every plugin the source declares.',
  ' * Earlier releases of a series may lack a few of them. `plugins`: the',
  ' * declared plugins, whose options (`plugin_...`) exist once one is loaded.',
  ' */',
  'export const MYSQL_OPTION_LISTS: Readonly<Record<string, { readonly release: string; readonly names: string; readonly plugins: string }>> = {',
  ...tables.flatMap((table) => [
    `  '${table.series}': {`,
    `    release: '${table.release}',`,
    '    names: `',
    wrapWords(table.names, 116),
    '`,',
    '    plugins: `',
    wrapWords(table.plugins, 116),
    '`,',
    '  },',
  ]),
  '};',
  '',
];
writeOrCheck(target, lines.join('\n'), `node scripts/gen-mysql-options.mjs ${sources.join(' ')}`);
