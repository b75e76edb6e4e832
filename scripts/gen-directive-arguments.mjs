#!/usr/bin/env node
// Writes src/languages/apache/directive-arguments.ts: for each directive whose
// argument count httpd checks before the directive's own code runs (config.c's
// invoke_cmd: TAKE1, TAKE12, FLAG...), which check it is, found by asking the
// installed apache2: each directive is written with no argument (and, when
// that passes, with one) where it is allowed, and `apache2 -t`'s message names
// the check. `--check` exits 1 when the file differs from what the binary says;
// `--sample N` checks N directives, spread over the table, against the binary.
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { APACHE, APACHE_ENV, configHead, directivesByModule, loadOrder, MPMS, shippedModules } from './apache-modules.mjs';
import { writeOrCheck } from './generated-file.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const target = join(root, 'src', 'languages', 'apache', 'directive-arguments.ts');

/** invoke_cmd's messages, after the directive's name, by the argument check that gives them. */
const MESSAGES = [
  ['TAKE1', 'takes one argument'],
  ['TAKE2', 'takes two arguments'],
  ['TAKE12', 'takes 1-2 arguments'],
  ['TAKE3', 'takes three arguments'],
  ['TAKE23', 'takes two or three arguments'],
  ['TAKE123', 'takes one, two or three arguments'],
  ['TAKE13', 'takes one or three arguments'],
  ['ITERATE2', 'requires at least two arguments'],
  ['FLAG', 'must be On or Off'],
];
/** Where a directive is tried, in turn, until httpd no longer says it is not allowed there. */
const CONTEXTS = [
  [],
  ['<Directory "/">', '</Directory>'],
  ['<Location "/">', '</Location>'],
  ['<VirtualHost *:80>', '</VirtualHost>'],
  ['<Proxy "*">', '</Proxy>'],
];
const MPM_SOURCES = { 'prefork.c': 'prefork', 'worker.c': 'worker', 'event.c': 'event' };

const scratch = mkdtempSync(join(tmpdir(), 'tune-lint-arguments-'));
const modules = shippedModules();
const orders = new Map(MPMS.map((mpm) => [mpm, loadOrder(mpm, modules)]));

let probes = 0;

/** httpd's message for `line` in each context until one allows it, or null when the config is accepted. */
async function messageFor(mpm, name, line) {
  // A directory per probe: two run at a time.
  const dir = join(scratch, String(probes++));
  mkdirSync(dir);
  try {
    for (const [open, close] of CONTEXTS) {
      const body = open === undefined ? [line] : [open, line, close];
      writeFileSync(
        join(dir, 'httpd.conf'),
        `${[...configHead(mpm, dir), ...orders.get(mpm), 'ServerName localhost', ...body].join('\n')}\n`,
      );
      const stderr = await new Promise((resolve) => {
        execFile(APACHE, ['-d', dir, '-f', 'httpd.conf', '-t'], { encoding: 'utf8', env: APACHE_ENV }, (error, _stdout, errorOutput) =>
          resolve(error === null ? null : errorOutput),
        );
      });
      if (stderr === null) return null;
      const message = /Syntax error on line \d+ of [^:\n]+:\s*([^\n]+)/.exec(stderr)?.[1] ?? stderr.trim();
      if (message.toLowerCase() !== `${name.toLowerCase()} not allowed here`) return message;
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  throw new Error(`${name}: not allowed in any context tried`);
}

/** The argument check httpd makes for `name` under `mpm` and the help its message quotes, or undefined when the directive's own code counts. */
async function argumentCheck(mpm, name) {
  const none = await messageFor(mpm, name, name);
  if (none === null)
    return (await messageFor(mpm, name, `${name} x`))?.toLowerCase() === `${name.toLowerCase()} takes no arguments`
      ? { check: 'NO_ARGS', help: '' }
      : undefined;
  for (const [check, text] of MESSAGES) {
    const prefix = `${name} ${text}`.toLowerCase();
    if (none.toLowerCase() === prefix) return { check, help: '' };
    if (none.toLowerCase().startsWith(`${prefix}, `)) return { check, help: none.slice(prefix.length + 2) };
  }
  return undefined;
}

/** The check of each name, when every MPM that registers it makes the same one; help by MPM when they word it differently. */
async function table(names) {
  const answers = new Map();
  const queue = names.flatMap(([name, mpms]) => mpms.map((mpm) => ({ name, mpm })));
  const worker = async () => {
    for (let job = queue.shift(); job !== undefined; job = queue.shift())
      answers.set(`${job.name} ${job.mpm}`, await argumentCheck(job.mpm, job.name));
  };
  await Promise.all([worker(), worker()]);
  const checks = new Map();
  for (const [name, mpms] of names) {
    const found = mpms.map((mpm) => ({ mpm, answer: answers.get(`${name} ${mpm}`) }));
    const kinds = new Set(found.map(({ answer }) => answer?.check));
    if (kinds.size !== 1 || kinds.has(undefined)) continue;
    const helps = new Set(found.map(({ answer }) => answer.help));
    checks.set(name.toLowerCase(), {
      check: found[0].answer.check,
      help: helps.size === 1 ? found[0].answer.help : Object.fromEntries(found.map(({ mpm, answer }) => [mpm, answer.help])),
    });
  }
  return checks;
}

try {
  const names = new Map();
  for (const [source, directives] of directivesByModule(modules)) {
    for (const name of directives) {
      if (name.startsWith('<')) continue;
      const mpm = MPM_SOURCES[source];
      const mpms = names.get(name) ?? [];
      if (mpm !== undefined) mpms.push(mpm);
      names.set(name, mpms);
    }
  }
  for (const [name, mpms] of names) if (mpms.length === 0) names.set(name, ['event']);
  const sampleArgument = process.argv.indexOf('--sample');
  if (sampleArgument !== -1) {
    const size = Number(process.argv[sampleArgument + 1]);
    const { DIRECTIVE_ARGUMENTS } = await import(join(root, 'dist', 'src', 'languages', 'apache', 'directive-arguments.js'));
    const all = [...names].sort(([a], [b]) => a.localeCompare(b));
    const step = Math.max(1, Math.floor(all.length / size));
    const sample = all.filter((_, index) => index % step === 0).slice(0, size);
    const wrong = [];
    const installed = execFileSync(APACHE, ['-v'], { encoding: 'utf8' })
      .split('\n')[0]
      .replace(/^Server version: /, '');
    const recorded = /^\/\/ Generated by .* from (.*); do not edit\.$/m.exec(readFileSync(target, 'utf8'))?.[1];
    // Another point release than the table's (Debian moves them under CI): a directive only one of them has is named, not held against the table.
    const onlyInstalled = [];
    for (const [name, { check }] of await table(sample)) {
      if (DIRECTIVE_ARGUMENTS[name] === undefined && recorded !== installed) onlyInstalled.push(name);
      else if (DIRECTIVE_ARGUMENTS[name] !== check) wrong.push(`${name}: ${DIRECTIVE_ARGUMENTS[name]} in the table, ${check} by apache2`);
    }
    if (recorded !== installed)
      console.log(
        `${installed} is installed, the table is from ${recorded}${onlyInstalled.length > 0 ? `; only in ${installed}: ${onlyInstalled.join(' ')}` : ''}`,
      );
    for (const [name] of sample)
      if (DIRECTIVE_ARGUMENTS[name.toLowerCase()] !== undefined && !(await table([[name, names.get(name)]])).has(name.toLowerCase()))
        wrong.push(`${name}: in the table, not checked by apache2`);
    if (wrong.length > 0) {
      console.error(`${target} disagrees with ${APACHE}:\n${wrong.join('\n')}\nrun \`node scripts/gen-directive-arguments.mjs\``);
      process.exit(1);
    }
  } else {
    const checks = [...(await table([...names]))].sort(([a], [b]) => a.localeCompare(b));
    const version = execFileSync(APACHE, ['-v'], { encoding: 'utf8' })
      .split('\n')[0]
      .replace(/^Server version: /, '');
    const key = (name) => (/^[a-z_]\w*$/.test(name) ? name : `'${name}'`);
    const rows = checks.map(([name, { check }]) => `  ${key(name)}: '${check}',`);
    const helpLines = checks.flatMap(([name, { help }]) =>
      typeof help === 'string'
        ? help === ''
          ? []
          : [`${name}\t${help}`]
        : Object.entries(help).map(([mpm, text]) => `${name} ${mpm}\t${text}`),
    );
    const text = `// Generated by scripts/gen-directive-arguments.mjs from ${version}; do not edit.
import { lookupTable } from '../../util/lookup.js';

/** How httpd counts a directive's arguments before its own code runs (server/config.c, invoke_cmd). */
export type ArgumentCheck = ${[...MESSAGES.map(([check]) => check), 'NO_ARGS'].map((check) => `'${check}'`).join(' | ')};

/**
 * The argument check of each directive of httpd 2.4 and the modules it ships
 * whose count httpd checks itself, by lower-case name, as the installed
 * apache2 answers when the directive is written without arguments. A
 * directive not here parses its own arguments (RAW_ARGS, TAKE_ARGV) or takes
 * any number (ITERATE).
 */
export const DIRECTIVE_ARGUMENTS: Readonly<Record<string, ArgumentCheck>> = lookupTable({
${rows.join('\n')}
});

/**
 * The help text httpd's argument error quotes after the check's words
 * (\`Timeout takes one argument, Timeout duration (sec)\`): one line per
 * directive, \`name<TAB>help\`, or \`name mpm<TAB>help\` where the MPMs word it
 * differently. Read only to word a report.
 */
export const ARGUMENT_HELP = \`
${helpLines.map((line) => line.replace(/[\\`]/g, '\\$&').replace(/\$\{/g, '\\${')).join('\n')}
\`;
`;
    writeOrCheck(target, text, 'node scripts/gen-directive-arguments.mjs');
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
