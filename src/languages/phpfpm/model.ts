import * as path from 'node:path';
import { FileAccessError, InputBudget, type ConfigFileSystem } from '../../core/file-system.js';
import type { ConfigProblem } from '../../core/problem.js';
import type { SourceFile } from '../../core/source-file.js';
import type { Located } from '../../core/types.js';
import { byteOrder, compileFnmatch, hasWildcard } from '../../util/fnmatch.js';
import { parsePhpFpm, type EntryLine, type PhpFpmLine } from './parser.js';
import { asciiLowerCase } from '../../util/ascii.js';

/** php-fpm's compiled-in prefix on Debian, Ubuntu and RHEL: relative `include` paths are under it (fpm_conf.c). */
const FPM_PREFIX = '/usr';

interface PhpFpmFileEntry {
  readonly source: SourceFile;
  readonly lines: readonly PhpFpmLine[];
  readonly depth: number;
}

/** One `key = value` in effect, in the order php-fpm reads it. */
export interface PhpFpmEntryUse extends Located {
  readonly line: EntryLine;
  /** Lower-case, as fpm_conf.c compares keys: `pm.max_children`, `php_admin_value[memory_limit]`. */
  readonly key: string;
  /** The value with `$pool` replaced by the pool name, as php-fpm does for pool entries. */
  readonly value: string;
  /** `global` or the pool's name. */
  readonly section: string;
  readonly context: readonly string[];
}

export interface PhpFpmPool {
  readonly name: string;
  /** The first `[name]` line: where a finding about the pool as a whole points. */
  readonly header: Located;
  readonly uses: readonly PhpFpmEntryUse[];
  /** The entry that sets `key` last (lower-case key). */
  effective(key: string): PhpFpmEntryUse | undefined;
}

export interface PhpFpmConfig {
  readonly root: SourceFile;
  readonly files: readonly PhpFpmFileEntry[];
  readonly global: PhpFpmPool;
  readonly pools: readonly PhpFpmPool[];
  readonly problems: readonly ConfigProblem[];
}

class Pool implements PhpFpmPool {
  readonly uses: PhpFpmEntryUse[] = [];
  private readonly last = new Map<string, PhpFpmEntryUse>();

  constructor(
    readonly name: string,
    readonly header: Located,
  ) {}

  add(use: PhpFpmEntryUse): void {
    this.uses.push(use);
    this.last.set(use.key, use);
  }

  effective(key: string): PhpFpmEntryUse | undefined {
    return this.last.get(key);
  }
}

/**
 * Reads php-fpm.conf (or a lone pool file) and what it includes, the way
 * php-fpm does with `-y FILE`: sections open pools (a name seen again goes on
 * with the same pool), `include` globs are read in sorted order where they
 * stand, and the current section carries over into and out of an included
 * file, as php-fpm's parser keeps it in one global. Never throws: unreadable
 * files and lines php-fpm refuses are problems.
 */
export function loadPhpFpm(rootPath: string, fs: ConfigFileSystem): PhpFpmConfig {
  const files: PhpFpmFileEntry[] = [];
  const problems: ConfigProblem[] = [];
  const pools = new Map<string, Pool>();
  let root: SourceFile | undefined;
  let current: Pool | undefined;
  // fpm_conf.c finds a section's pool with strcasecmp, and [GLOBAL] is [global]: a pool keeps the name it was first given.
  const poolNamed = (name: string, header: Located): Pool => {
    const folded = asciiLowerCase(name);
    let pool = pools.get(folded);
    if (pool === undefined) {
      pool = new Pool(folded === 'global' ? 'global' : name, header);
      pools.set(folded, pool);
    }
    return pool;
  };

  // The shared input budget (files, bytes, lines, depth): a pool that includes itself three times would otherwise never end.
  const budget = new InputBudget(fs.limits);
  const including: string[] = [];
  const refuse = (message: string, at: Located): void => {
    problems.push({ ruleId: 'TL0006', severity: 'error', message, file: at.file, range: at.range });
  };

  const readFile = (hostPath: string, depth: number, from: Located | undefined): void => {
    if (budget.exhausted) return;
    let source: SourceFile;
    try {
      source = fs.read(hostPath);
    } catch (error) {
      if (!(error instanceof FileAccessError) || from === undefined) throw error;
      problems.push({
        ruleId: 'TL0002',
        severity: 'error',
        message: `${error.message}; php-fpm does not start`,
        file: from.file,
        range: from.range,
      });
      return;
    }
    if (from === undefined) budget.chargeMain(source);
    else {
      const refused = budget.charge(source);
      if (refused !== undefined) {
        if (refused !== '') refuse(refused, from);
        return;
      }
    }
    root ??= source;
    const lines = parsePhpFpm(source.text);
    files.push({ source, lines, depth });
    for (const line of lines) {
      if (line.kind === 'section') {
        current = poolNamed(line.name, { file: source, range: line.range });
      } else if (line.kind === 'broken') {
        problems.push({
          ruleId: 'TL0001',
          severity: 'error',
          message: `php-fpm refuses this line: ${line.reason}; it reports "value is NULL for a ZEND_INI_PARSER_ENTRY" and does not start`,
          file: source,
          range: line.range,
        });
      } else if (line.kind === 'entry') {
        // fpm_conf.c takes `include` as written (INCLUDE is an unknown entry) and compares other keys with strcasecmp.
        const key = asciiLowerCase(line.key);
        const at: Located = { file: source, range: line.range };
        if (line.key === 'include') {
          includeFiles(line.value, depth, at);
          continue;
        }
        const pool = current ?? poolNamed('global', at);
        const value = pool.name === 'global' ? line.value : line.value.replaceAll('$pool', pool.name);
        pool.add({ file: source, range: line.range, line, key, value, section: pool.name, context: [`[${pool.name}]`] });
      }
    }
  };

  /** What an `include` names, each read where it stands; a file that includes itself (at any distance) is a loop, not read again. */
  const includeFiles = (pattern: string, depth: number, at: Located): void => {
    const tooDeep = budget.tooDeep(depth + 1);
    if (tooDeep !== undefined) {
      refuse(tooDeep, at);
      return;
    }
    for (const included of includedFiles(fs, pattern, problems, at)) {
      const real = fs.resolve(included);
      if (including.includes(real)) {
        const cycle = [...including.slice(including.indexOf(real)), real].map((file) => fs.display(file)).join(' -> ');
        refuse(`include cycle ${cycle}; php-fpm would read these files again and again until it runs out of file handles`, at);
        continue;
      }
      including.push(real);
      try {
        readFile(included, depth + 1, at);
      } finally {
        including.pop();
      }
    }
  };

  including.push(fs.resolve(path.resolve(fs.cwd, rootPath)));
  readFile(rootPath, 0, undefined);
  const global = pools.get('global') ?? new Pool('global', { file: root as SourceFile, range: [0, 0] });
  const config: PhpFpmConfig = {
    root: root as SourceFile,
    files,
    global,
    pools: [...pools.values()].filter((pool) => pool.name !== 'global'),
    problems,
  };
  return config;
}

/** The files an `include` names, sorted as glob(3) sorts them; a pattern that matches nothing is allowed, as GLOB_NOMATCH is for php-fpm. */
function includedFiles(fs: ConfigFileSystem, pattern: string, problems: ConfigProblem[], at: Located): string[] {
  const serverPath = path.posix.isAbsolute(pattern) ? pattern : path.posix.join(FPM_PREFIX, pattern);
  const directory = path.posix.dirname(serverPath);
  const name = path.posix.basename(serverPath);
  if (hasWildcard(directory)) {
    problems.push({
      ruleId: 'TL0002',
      severity: 'warn',
      message: `include ${pattern}: wildcards in directory names are not followed by tune-lint; the files it matches were not read`,
      file: at.file,
      range: at.range,
    });
    return [];
  }
  const hostDirectory = fs.locate(directory);
  if (!hasWildcard(name)) return fs.kind(path.join(hostDirectory, name)) === 'file' ? [path.join(hostDirectory, name)] : [];
  const matches = compileFnmatch(name);
  return fs
    .list(hostDirectory)
    .filter((entry) => !entry.startsWith('.') && matches(entry))
    .sort(byteOrder)
    .map((entry) => path.join(hostDirectory, entry))
    .filter((file) => fs.kind(file) === 'file');
}
