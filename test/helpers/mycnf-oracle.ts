import { spawnSync } from 'node:child_process';
import { groupKey } from '../../src/languages/mycnf/groups.js';
import type { MycnfConfig, MycnfOptionUse } from '../../src/languages/mycnf/model.js';

export interface ToolRun {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** `my_print_defaults --defaults-file=FILE GROUPS...` (`--mysqld` for the server's groups), run in `cwd`. */
export function printDefaults(tool: string, file: string, groups: readonly string[], cwd: string): ToolRun {
  const run = spawnSync(tool, [`--defaults-file=${file}`, ...groups], { cwd, encoding: 'latin1' });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** The arguments our model says the reader produces for these groups, as my_print_defaults prints them (bytes as latin1). */
export function ourArguments(config: MycnfConfig, groups?: readonly string[]): string {
  const wanted = new Set(groups?.map(groupKey));
  const uses: MycnfOptionUse[] =
    groups === undefined
      ? [...config.uses]
      : [...config.uses, ...config.otherOptions].filter((use) => wanted.has(groupKey(use.group))).sort((a, b) => a.order - b.order);
  return uses.map((use) => `${use.line.argument}\n`).join('');
}

/** The variables table of `mariadbd --defaults-file=FILE --help --verbose` (never starts a server), names with `_`. */
export function serverVariables(
  tool: string | readonly string[],
  file: string | undefined,
  cwd: string,
): { status: number | null; stderr: string; values: Map<string, string> } {
  const first = file === undefined ? '--no-defaults' : `--defaults-file=${file}`;
  // A command line of its own (`chroot ROOT /usr/sbin/mariadbd`) for a server in a chroot.
  const [command, ...prefix] = typeof tool === 'string' ? [tool] : tool;
  const run = spawnSync(command as string, [...prefix, first, '--help', '--verbose'], {
    cwd,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const values = new Map<string, string>();
  const lines = run.stdout.split('\n');
  const start = lines.findIndex((line) => /^-{20,} -{10,}$/.test(line));
  for (const line of start === -1 ? [] : lines.slice(start + 1)) {
    if (line.trim() === '') break;
    const match = /^(\S+)\s+(.*)$/.exec(line);
    if (match) values.set((match[1] as string).replaceAll('-', '_'), (match[2] as string).trimEnd());
  }
  return { status: run.status, stderr: run.stderr, values };
}

/**
 * The MariaDB series of an installed server binary (`mariadbd --version`), for
 * tests whose expectations are that series' facts (option list, defaults).
 */
export function serverSeries(tool: string): string | undefined {
  const run = spawnSync(tool, ['--version'], { encoding: 'utf8' });
  return /Ver (\d+\.\d+)\./.exec(run.stdout)?.[1];
}
