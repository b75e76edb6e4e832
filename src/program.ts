import { Command, InvalidArgumentError, Option } from 'commander';
import type { DumpOptions } from './commands/dump.js';
import type { FleetOptions } from './commands/fleet.js';
import type { LintCommandOptions } from './commands/options.js';
import type { MeasureCommandOptions } from './commands/measure.js';
import type { ProbeCommandOptions } from './commands/probe.js';
import { readVersion } from './commands/version.js';
import { FORMAT_NAMES } from './formatters/index.js';
import { builtinLanguages } from './languages/index.js';
import { stderr, stdout } from './util/stdio.js';

/** commander wiring only: flags -> options -> the command runners, which load lazily. */
export function buildProgram(setExit: (code: number) => void): Command {
  const program = new Command('tune-lint')
    // Options after a subcommand are the subcommand's: otherwise the program's own --sysroot, --target... took
    // `dump --sysroot DIR` and dump read the host's files instead of the repository's.
    .enablePositionalOptions()
    .exitOverride()
    .configureOutput({
      writeOut: (text) => stdout.write(text),
      writeErr: (text) => stderr.write(text),
      outputError: (text, write) => write(text.replace(/^error: /, 'tune-lint: ')),
    })
    .version(readVersion(), '-V, --version')
    .description('Lint and tune Apache httpd, MySQL/MariaDB and php-fpm configs: diagnosis, host-aware sizing and a patch')
    .argument('[paths...]', 'main config files (apache2.conf, httpd.conf, my.cnf); default: the system configs')
    .addOption(new Option('--format <format>', 'output format').choices(FORMAT_NAMES).default('stylish'))
    .option('--fix', 'write the fixes (atomic: temp file + rename, mode kept)', false)
    .addOption(new Option('--fix-type <type>', 'which fixes to apply or show').choices(['safe', 'tune', 'all']).default('all'))
    .option('--verify', 'check the patched configs with the real servers before printing or writing', false)
    .option('--host-ram <size>', 'RAM of the host the configs run on, e.g. 512M')
    .option('--host-cpus <count>', 'CPUs of that host')
    .option('--per-child <size>', 'memory of one Apache child (process), e.g. 20M')
    .option('--php-per-child <size>', 'memory of one php-fpm child, e.g. 48M')
    .option('--profile <file>', 'host facts from a profile file (tune-lint probe --yaml)')
    .option('--facts <file>', 'host facts from an Ansible facts file')
    .option('--no-probe', 'never look at this machine (implies --no-live)')
    .option('--no-live', 'never ask the running servers (MySQL/MariaDB over its socket, Apache status and error log)')
    .option('--mysql-defaults-file <file>', "option file with the [client] login for the running server, e.g. Debian's debian.cnf")
    .option('--live-read-time <duration>', "how long reading the running database's tables may take, e.g. 10s (default 5s)")
    .option('--min-uptime <duration>', "firm verdicts from the running server's counters only after this uptime, e.g. 1h (default 1d)")
    .option('--sysroot <dir>', 'resolve absolute include paths under DIR (a config repository)')
    .option('--sysroot-at <path>', 'the server directory --sysroot holds, e.g. /etc/httpd for a repository of its files (default /)')
    .option('--target <spec>', 'versions to lint for, e.g. httpd=2.4,mysql=8.0 or mariadb=10.11')
    .option('--config <file>', `configuration file (default: .tune-lint.yaml found upward)`)
    .option('--rule <id=severity>', 'set a rule: AP2001=off|info|warn|error (repeatable)', collect, [])
    .option('--max-warnings <n>', 'exit 1 when there are more warnings than this (a negative number: no limit)', integer)
    .option('--quiet', 'report and count errors only', false)
    .option('--no-patch', 'leave the suggested patch out of the report (--format diff prints it alone)')
    .option('--no-color', 'no colour even on a terminal')
    .addOption(new Option('--lang <language>', 'read every path as this language').choices(builtinLanguages.map((language) => language.id)))
    .option('--print-config <path>', 'print the configuration that applies to PATH and exit')
    .option('--include-base <dir>', 'directory relative !include paths resolve against (the server uses its working directory)')
    .option('--server-root <dir>', 'Apache ServerRoot before the config sets one (httpd -d)')
    .option('--define <name>', 'Apache define, as httpd -D NAME (repeatable)', collect, [])
    .option('--env <name=value>', 'a variable of the environment httpd starts with, for ${NAME} (repeatable)', collect, [])
    .option(
      '--env-file <file>',
      "variables from a KEY=VALUE file, as Docker's --env-file and systemd's EnvironmentFile= (repeatable)",
      collect,
      [],
    )
    .option('--max-file-size <size>', 'refuse config files larger than this (default 64M)')
    .option('--max-files <n>', 'read at most this many files through the includes of each main file (default 100000)', integer)
    .option('--max-input-size <size>', 'read at most this much for each main file, itself and every inclusion counted (default 64M)')
    .option(
      '--max-lines <n>',
      'read at most this many lines for each main file, itself and every inclusion counted (default 800000)',
      integer,
    )
    .option('--debug', 'print stack traces with errors', false)
    .action(async (paths: string[], options: LintCommandOptions) => {
      const { runLint } = await import('./commands/lint.js');
      setExit(await runLint(paths, options));
    });

  program
    .command('dump')
    .description('print the parsed, include-resolved, effective config (files, modules, MPM, settings with file:line)')
    .argument('<path>', 'main config file')
    .option('--json', 'JSON output', false)
    .option('--sysroot <dir>', 'resolve absolute include paths under DIR')
    .option('--sysroot-at <path>', 'the server directory --sysroot holds (default /)')
    .option('--target <spec>', 'versions, e.g. httpd=2.4,mariadb=10.11')
    .addOption(new Option('--lang <language>', 'read the path as this language').choices(builtinLanguages.map((language) => language.id)))
    .option('--server-root <dir>', 'Apache ServerRoot before the config sets one')
    .option('--include-base <dir>', 'directory relative !include paths resolve against')
    .option('--env <name=value>', 'a variable of the environment httpd starts with, for ${NAME} (repeatable)', collect, [])
    .option('--env-file <file>', 'variables from a KEY=VALUE file (repeatable)', collect, [])
    .action(async (file: string, options: DumpOptions) => {
      const { runDump } = await import('./commands/dump.js');
      setExit(await runDump(file, options));
    });

  program
    .command('rules')
    .description('list the rule catalogue')
    .option('--json', 'JSON output', false)
    .action(async (options: { json: boolean }) => {
      const { runRules } = await import('./commands/rules.js');
      setExit(await runRules(options));
    });

  program
    .command('fleet')
    .description('one overview of per-host JSON reports (<host>.json): overcommit, errors per rule, drift from the running servers')
    .argument('<dir>', 'directory of tune-lint --format json reports, one per host')
    .addOption(new Option('--format <format>', 'output format').choices(['stylish', 'json', 'sarif', 'html']).default('stylish'))
    .action(async (dir: string, options: FleetOptions) => {
      const { runFleet } = await import('./commands/fleet.js');
      setExit(runFleet(dir, options));
    });

  program
    .command('probe')
    .description("print this machine's host facts and what its running servers say")
    .argument('[paths...]', 'main configs that say where the servers listen and log (default: the system configs)')
    .option('--yaml', 'as a profile file for --profile', false)
    .option('--no-live', 'never ask the running servers')
    .option('--mysql-defaults-file <file>', 'option file with the [client] login for the running server')
    .action(async (paths: string[], options: ProbeCommandOptions) => {
      const { runProbe } = await import('./commands/probe.js');
      setExit(await runProbe(paths, options));
    });

  program
    .command('measure')
    .description("load a page of this host with ab and measure the servers' children at the peak, as a profile")
    .argument('<url>', 'the heaviest page, on loopback or an address of this host: http://127.0.0.1/node/1')
    .option('--requests <n>', 'at most this many requests', integer, 2000)
    .option('--concurrency <n>', 'requests at once', integer, 10)
    .option('--time-limit <seconds>', 'stop after this long', integer, 60)
    .option('--out <file>', 'write the profile here (default: stdout) for --profile')
    .action(async (url: string, options: MeasureCommandOptions) => {
      const { runMeasure } = await import('./commands/measure.js');
      setExit(await runMeasure(url, options));
    });

  program
    .command('lsp')
    .description('a language server for editors: findings as you type, quick fixes, hover (docs/editors.md)')
    .option('--stdio', 'talk over stdin and stdout, the only transport (editors pass it)')
    .action(async () => {
      const { runLanguageServer } = await import('./lsp/server.js');
      setExit(await runLanguageServer());
    });
  return program;
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function integer(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed)) throw new InvalidArgumentError('expected a whole number');
  return parsed;
}
