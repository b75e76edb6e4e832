import * as path from 'node:path';
import type { LanguageDefinition } from '../../core/language.js';
import { phpFpmConsumers } from './consumption.js';
import { phpConfigKind } from './detect.js';
import { phpFpmSettingAt } from './setting-at.js';
import { dumpPhpFpm } from './dump.js';
import { loadPhpFpm, type PhpFpmConfig } from './model.js';
import { parsePhpFpm } from './parser.js';

declare module '../../core/language.js' {
  interface LanguageConfigs {
    phpfpm: PhpFpmConfig;
  }
}

/** php-fpm's `php-fpm.conf` and its pools. */
export const phpFpmLanguage: LanguageDefinition<'phpfpm'> = {
  id: 'phpfpm',
  server: 'php-fpm',
  files: 'php-fpm pools',
  guessedAs: 'a php-fpm configuration (a [section] with php-fpm keys such as pm.* or listen); --lang apache or mycnf reads it otherwise',
  rules: { prefix: 'PF', title: 'php-fpm pools', sample: { fence: 'ini', extension: 'conf', comment: ';' } },
  detect: {
    byName: (hostPath) =>
      path.basename(hostPath).toLowerCase() === 'php-fpm.conf' || /\/(fpm\/pool\.d|php-fpm\.d)\/[^/]+\.conf$/.test(hostPath)
        ? 'exact'
        : undefined,
    byContent: (head) => {
      const kind = phpConfigKind(head);
      return kind === undefined ? undefined : 'language' in kind ? 'claims' : kind;
    },
  },
  // One main file per PHP version on Debian and Ubuntu (`/etc/php/8.2/fpm/php-fpm.conf`) and openSUSE
  // (`/etc/php8/fpm/php-fpm.conf`), one on RHEL and Fedora, one in FreeBSD's ports.
  systemConfigs: (list) => [
    ...[...(list('/etc/php') ?? [])].sort().map((version) => `/etc/php/${version}/fpm/php-fpm.conf`),
    ...[...(list('/etc') ?? [])]
      .filter((name) => /^php\d+$/.test(name))
      .sort()
      .map((name) => `/etc/${name}/fpm/php-fpm.conf`),
    '/etc/php-fpm.conf',
    '/usr/local/etc/php-fpm.conf',
  ],
  load: (hostPath, { fs }) => loadPhpFpm(hostPath, fs),
  dump: dumpPhpFpm,
  consumers: phpFpmConsumers,
  settingAt: phpFpmSettingAt,
  api: { parsePhpFpm, loadPhpFpm },
};
