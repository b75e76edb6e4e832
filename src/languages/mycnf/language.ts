import * as path from 'node:path';
import type { ConfigFileSystem } from '../../core/file-system.js';
import type { LanguageDefinition } from '../../core/language.js';
import type { DatabaseTarget } from '../../core/targets.js';
import type { SourceFile } from '../../core/source-file.js';
import { mysqlConsumers } from './consumption.js';
import { dispatchMycnf, type MycnfVisitors } from './dispatch.js';
import { mycnfSettingAt } from './setting-at.js';
import { dumpMycnfConfig } from './dump.js';
import { inferDatabaseTarget } from './product.js';
import { loadMycnf, type MycnfConfig } from './model.js';
import { parseMyCnf } from './parser.js';

/** What `--include-base` gives the option-file reader. */
export interface MycnfReaderOptions {
  /**
   * Base directory for relative `!include` paths (the server resolves them
   * against its working directory): a path on this disk, which under a
   * sysroot is taken as the server path it stands for.
   */
  readonly includeBase?: string;
}

declare module '../../core/language.js' {
  interface LanguageConfigs {
    mycnf: MycnfConfig;
  }
  interface LanguageReaderOptions {
    mycnf: MycnfReaderOptions;
  }
  interface LanguageVisitors {
    mycnf: MycnfVisitors;
  }
}

/** MySQL's and MariaDB's option files: `my.cnf` and its `!include`s. */
export const mycnfLanguage: LanguageDefinition<'mycnf'> = {
  id: 'mycnf',
  server: 'MySQL/MariaDB',
  files: 'MySQL/MariaDB option files',
  guessedAs:
    'a MySQL/MariaDB option file (its name does not say, and it starts with a [group] header or !include); --lang apache reads it as an httpd config',
  rules: { prefix: 'MY', title: 'MySQL / MariaDB option files', sample: { fence: 'ini', extension: 'cnf', comment: '#' } },
  detect: {
    byName: (hostPath) => (/\.(cnf|ini)$/.test(path.basename(hostPath).toLowerCase()) ? 'extension' : undefined),
    // The first meaningful line: an option group's header (`[mysqld]`) or an `!include`.
    looksLike(head) {
      for (const line of head.split('\n', 200)) {
        const trimmed = line.trim();
        if (trimmed === '' || trimmed.startsWith('#') || trimmed.startsWith(';')) continue;
        return /^\[[^\]]*\]/.test(trimmed) || /^!\s*include(dir)?\s/.test(trimmed);
      }
      return false;
    },
  },
  // Debian, RHEL and openSUSE, FreeBSD's ports.
  systemConfigs: () => ['/etc/mysql/my.cnf', '/etc/my.cnf', '/usr/local/etc/mysql/my.cnf'],
  onePerHost: 'only one my.cnf can be linted per host',
  load(hostPath, { fs, targets, options, previous }) {
    // The reader turns an unreadable file into a problem, as the server skips one; a main file given that cannot be read is an input error.
    fs.read(hostPath);
    if (previous !== undefined && sameTarget(previous.target, targets.db) && readsTheSame(previous.files, fs)) return previous;
    return loadMycnf(hostPath, {
      fs,
      target: targets.db,
      ...(options?.includeBase === undefined ? {} : { includeBase: fs.serverPath(options.includeBase) }),
    });
  },
  assumed(config) {
    const { target } = config;
    const product = target.product === 'mariadb' ? 'MariaDB' : 'MySQL';
    const naming = '--target mysql=8.0 or mariadb=11.4, target: in .tune-lint.yaml, or a probe of the host that runs it';
    if (target.inferredFrom !== undefined)
      return [`database server ${product} ${target.version}, inferred from the files: ${target.inferredFrom} (${naming} names another)`];
    if (target.assumed !== true) return [];
    return [`database server ${product} ${target.version}, assumed: nothing names it (${naming})`];
  },
  inferTargets(config, targets) {
    if (targets.db.assumed !== true) return undefined;
    const db = inferDatabaseTarget(config, targets.db);
    return db === undefined ? undefined : { ...targets, db };
  },
  dump: dumpMycnfConfig,
  consumers: (config) => mysqlConsumers(config),
  dispatch: dispatchMycnf,
  settingAt: mycnfSettingAt,
  api: { parseMyCnf, loadMycnf },
};

/**
 * Whether every file a config read reads the same through `fs`. A fix pass
 * changes only texts of files that were read, so then reading the config
 * again would give the same config: a pass that fixed only Apache keeps the
 * option files' config as it is.
 */
function readsTheSame(files: readonly { readonly source: SourceFile }[], fs: ConfigFileSystem): boolean {
  for (const { source } of files) {
    let current: SourceFile;
    try {
      current = fs.read(source.path, source.displayPath);
    } catch {
      return false;
    }
    if (current !== source && current.text !== source.text) return false;
  }
  return true;
}

/** Whether two database targets are one: the reader's groups and names, and the edits (loose- while assumed), follow the target. */
function sameTarget(a: DatabaseTarget, b: DatabaseTarget): boolean {
  return a.product === b.product && a.version === b.version && a.assumed === b.assumed && a.inferredFrom === b.inferredFrom;
}
