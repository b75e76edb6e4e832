import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ProcessInfo, ProcReader } from './proc.js';
import type { ServerProcesses } from './running.js';

/*
 * Which running server is the one whose config is linted, when a host runs
 * several (a test instance beside the real one, `apache2@site` instances,
 * containers): each parent's config is read from its command line, as the
 * server took it, and matched by real path to the main configs linted. Only
 * the matching instance is measured; when none matches, all are, and a note
 * says so.
 */

export type ServerKind = 'apache' | 'database' | 'php-fpm';

const WORDS: Readonly<Record<ServerKind, string>> = {
  apache: 'Apache servers',
  database: 'database servers',
  'php-fpm': 'php-fpm masters',
};

/** The option files mysqld and mariadbd read when no --defaults-file names one (Debian's, then RHEL's). */
const DATABASE_DEFAULTS = ['/etc/mysql/my.cnf', '/etc/my.cnf'];

/**
 * The configs a server parent was started with, as paths on this machine
 * (through /proc/PID/root for a process in another root): httpd's `-f`
 * (relative to `-d`, else the compiled-in ServerRoot of Debian's apache2 or
 * RHEL's httpd), mysqld's `--defaults-file` (else the default option files;
 * none with `--no-defaults`),
 * the file php-fpm's master names in its title. Empty when it cannot be told.
 */
function configsOf(reader: ProcReader, parent: ProcessInfo, kind: ServerKind): string[] {
  const cmdline = reader.read(`/proc/${parent.pid}/cmdline`);
  if (!cmdline.ok) return [];
  const args = cmdline.text.split('\0').filter((argument) => argument !== '');
  const seen = serverPaths(args, parent.name, kind);
  const root = reader.link(`/proc/${parent.pid}/root`);
  return seen.map((file) =>
    realPath(reader, root === undefined || root === '/' ? file : path.posix.join(`/proc/${parent.pid}/root`, file)),
  );
}

function serverPaths(args: readonly string[], name: string, kind: ServerKind): string[] {
  if (kind === 'php-fpm') {
    const title = /\((\/[^)]+)\)/.exec(args.join(' '))?.[1];
    return title === undefined ? [] : [title];
  }
  if (kind === 'database') {
    if (args.includes('--no-defaults')) return [];
    const given = optionValue(args, '--defaults-file');
    return given === undefined ? DATABASE_DEFAULTS : [given];
  }
  const debian = name.startsWith('apache2');
  const serverRoot = optionValue(args, '-d') ?? (debian ? '/etc/apache2' : '/etc/httpd');
  const file = optionValue(args, '-f') ?? (debian ? 'apache2.conf' : 'conf/httpd.conf');
  return [path.posix.isAbsolute(file) ? file : path.posix.join(serverRoot, file)];
}

/** `-f FILE`, `-fFILE`, `--defaults-file=FILE`: the value of an option on a command line, the last one given. */
function optionValue(args: readonly string[], option: string): string | undefined {
  let value: string | undefined;
  args.forEach((argument, index) => {
    if (argument === option) value = args[index + 1];
    else if (option.startsWith('--') && argument.startsWith(`${option}=`)) value = argument.slice(option.length + 1);
    else if (!option.startsWith('--') && argument.startsWith(option) && argument.length > option.length)
      value = argument.slice(option.length);
  });
  return value;
}

function realPath(reader: ProcReader, file: string): string {
  try {
    return fs.realpathSync(reader.path(file));
  } catch {
    return reader.path(file);
  }
}

/**
 * The processes of the instance whose config is linted: the parents started
 * with one of the linted main configs (real paths) and their children. With
 * one parent, or nothing linted to match, the processes as they are; with
 * several and no match, all of them, with a note.
 */
export function linted(
  reader: ProcReader,
  found: ServerProcesses,
  kind: ServerKind,
  mains: readonly string[],
): { readonly processes: ServerProcesses; readonly note?: string } {
  if (found.parents.length <= 1 || mains.length === 0) return { processes: found };
  const wanted = new Set(mains.map((main) => realPath(reader, main)));
  const started = found.parents.map((parent) => ({ parent, configs: configsOf(reader, parent, kind) }));
  const matched = started.filter((entry) => entry.configs.some((config) => wanted.has(config))).map((entry) => entry.parent);
  const all = `${found.parents.length} ${WORDS[kind]} run (${started
    .map((entry) => `PID ${entry.parent.pid}: ${entry.configs.join(' or ') || 'config unknown'}`)
    .join('; ')})`;
  if (matched.length === 0) return { processes: found, note: `${all}; none was started with a config linted here, so all are measured` };
  const pids = new Set(matched.map((parent) => parent.pid));
  return {
    processes: { ...found, parents: matched, children: found.children.filter((child) => pids.has(child.ppid)) },
    note: `${all}; measured only PID ${[...pids].join(', ')}, started with the config linted`,
  };
}
