// tune-lint(1) and the bash completion, made from the CLI's own commander
// definitions (dist/src/program.js), the rule catalogue and docs/usage.md, so
// neither can drift from what the binary takes. scripts/package.mjs writes
// them into the packages; test/cli/package-docs.test.ts checks them.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** roff-escaped text: backslashes, leading dots and quotes, and hyphens as minus signs in option names. */
function roff(text) {
  return text
    .replace(/\\/g, '\\e')
    .replace(/^([.'])/gm, '\\&$1')
    .replace(/`([^`]+)`/g, '\\fB$1\\fR');
}

function flagsOf(option) {
  const argument = /<[^>]+>|\[[^\]]+\]/.exec(option.flags)?.[0];
  const names = option.flags.replace(/\s*(<[^>]+>|\[[^\]]+\])/, '');
  return `\\fB${names.replace(/-/g, '\\-')}\\fR${argument === undefined ? '' : ` \\fI${argument.slice(1, -1)}\\fR`}`;
}

function describeOption(option) {
  const choices = option.argChoices === undefined ? '' : ` (one of ${option.argChoices.join(', ')})`;
  const fallback =
    option.defaultValue === undefined || typeof option.defaultValue === 'boolean' || Array.isArray(option.defaultValue)
      ? ''
      : ` (default ${option.defaultValue})`;
  return `${option.description}${choices}${fallback}`;
}

function optionsSection(options) {
  return options.flatMap((option) => ['.TP', flagsOf(option), roff(describeOption(option))]);
}

/** The `## Exit codes` table of docs/usage.md as roff paragraphs, and the text under it. */
function exitCodes(usage) {
  const section = /## Exit codes\n([\s\S]*?)\n## /.exec(usage)?.[1] ?? '';
  const rows = [...section.matchAll(/^\| (\d) \| (.*) \|$/gm)].flatMap((row) => ['.TP', `\\fB${row[1]}\\fR`, roff(row[2])]);
  const prose = section
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('|'))
    .join(' ');
  return [...rows, '.PP', roff(prose)];
}

/** The page, for `version` as of `date` (YYYY-MM-DD). */
export function manPage(program, usage, version, date) {
  const lines = [
    `.TH TUNE\\-LINT 1 "${date}" "tune-lint ${version}" "User Commands"`,
    '.SH NAME',
    `tune\\-lint \\- ${roff(program.description())}`,
    '.SH SYNOPSIS',
    '.B tune\\-lint',
    '[\\fIoptions\\fR] [\\fIpaths\\fR...]',
  ];
  for (const command of program.commands) {
    lines.push(
      '.br',
      `.B tune\\-lint ${command.name()}`,
      `[\\fIoptions\\fR]${command.registeredArguments.map((argument) => ` ${argument.required ? `\\fI${argument.name()}\\fR` : `[\\fI${argument.name()}\\fR...]`}`).join('')}`,
    );
  }
  lines.push(
    '.SH DESCRIPTION',
    roff(
      'tune-lint reads Apache httpd configs (apache2.conf, httpd.conf and their Includes), MySQL/MariaDB option files (my.cnf and its !includes) and php-fpm pools the way the servers read them, works out the effective settings, learns the host (RAM, CPUs, the running servers and what they say), and prints a diagnosis with the arithmetic behind it and a patch (`--fix` writes it).',
    ),
    '.PP',
    roff(
      'With no path, the system configs found are linted together as one host. The full reference is /usr/share/doc/tune-lint/usage.md; each rule has a page under /usr/share/doc/tune-lint/rules/.',
    ),
    '.SH OPTIONS',
    ...optionsSection(program.options),
  );
  for (const command of program.commands) {
    lines.push(`.SH ${command.name().toUpperCase()} COMMAND`, roff(command.description()), ...optionsSection(command.options));
  }
  lines.push(
    '.SH EXIT STATUS',
    ...exitCodes(usage),
    '.SH FILES',
    '.TP',
    '\\fB.tune\\-lint.yaml\\fR',
    roff(
      'settings of a config repository (rules, targets, host facts, per-host overrides), found upward from the working directory; --config names another.',
    ),
    '.SH SEE ALSO',
    '\\fBapache2\\fR(8), \\fBmariadbd\\fR(8), \\fBphp\\-fpm8.2\\fR(8), \\fBmy_print_defaults\\fR(1)',
  );
  return `${lines.join('\n')}\n`;
}

/**
 * A bash completion: commands, their flags, each command's own choices (the
 * lint's --format and fleet's differ), rule ids and then severities for
 * --rule, files for the rest.
 */
export function bashCompletion(program, ruleIds) {
  const words = (options) => options.flatMap((option) => option.flags.split(/[ ,]+/).filter((flag) => flag.startsWith('-'))).join(' ');
  const choicesOf = (name, options) =>
    options
      .filter((option) => option.argChoices !== undefined)
      .map((option) => `    ${name}:${option.long}) COMPREPLY=($(compgen -W "${option.argChoices.join(' ')}" -- "$cur")); return ;;`);
  const choices = [...choicesOf('', program.options), ...program.commands.flatMap((command) => choicesOf(command.name(), command.options))];
  const commands = program.commands.map((command) => command.name());
  const perCommand = program.commands.map((command) => `      ${command.name()}) flags="${words(command.options)} --help" ;;`);
  return `# bash completion for tune-lint, generated from its option definitions (scripts/man-and-completion.mjs)
_tune_lint() {
  local cur prev command flags i
  COMPREPLY=()
  cur="\${COMP_WORDS[COMP_CWORD]}"
  prev="\${COMP_WORDS[COMP_CWORD-1]}"
  command=""
  for ((i = 1; i < COMP_CWORD; i++)); do
    case "\${COMP_WORDS[i]}" in
      ${commands.join('|')}) command="\${COMP_WORDS[i]}"; break ;;
    esac
  done
  # --rule ID=SEVERITY: bash splits the word at "=", so the severity comes after a word "=".
  if [[ "$prev" == "=" && $COMP_CWORD -ge 3 && "\${COMP_WORDS[COMP_CWORD-3]}" == "--rule" ]]; then
    COMPREPLY=($(compgen -W "off info warn error" -- "$cur"))
    return
  fi
  case "$command:$prev" in
${choices.join('\n')}
    :--rule) COMPREPLY=($(compgen -W "${ruleIds.map((id) => `${id}=`).join(' ')}" -- "$cur")); compopt -o nospace; return ;;
  esac
  if [[ "$cur" == -* ]]; then
    case "$command" in
${perCommand.join('\n')}
      *) flags="${words(program.options)} --help" ;;
    esac
    COMPREPLY=($(compgen -W "$flags" -- "$cur"))
    return
  fi
  if [[ -z "$command" && $COMP_CWORD -eq 1 ]]; then
    COMPREPLY=($(compgen -W "${commands.join(' ')}" -- "$cur"))
  fi
  COMPREPLY+=($(compgen -f -- "$cur"))
}
complete -o filenames -F _tune_lint tune-lint
`;
}

/** Both, from the built CLI in `root`. */
export async function generate(root) {
  const { buildProgram } = await import(join(root, 'dist', 'src', 'program.js'));
  const { builtinRules } = await import(join(root, 'dist', 'rules', 'index.js'));
  const program = buildProgram(() => undefined);
  const usage = readFileSync(join(root, 'docs', 'usage.md'), 'utf8');
  const version = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version;
  return { program, usage, version, ruleIds: builtinRules.map((rule) => rule.meta.id) };
}
