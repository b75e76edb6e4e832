import * as path from 'node:path';
import type { GivenEnvironment } from '../../core/types.js';
import type { LanguageDefinition } from '../../core/language.js';
import { lineOf } from '../../core/located.js';
import { parseTargetSpec } from '../../core/targets.js';
import { apacheConsumers } from './consumption.js';
import { dispatchApache, type ApacheVisitors } from './dispatch.js';
import { apacheSettingAt } from './setting-at.js';
import { dumpApacheConfig } from './dump.js';
import { ApacheConfig, loadApache } from './model.js';
import { ApacheDocument, parseApache } from './parser.js';
import type { ApacheSectionUse } from './uses.js';
import type { StartLayout } from './start-layout.js';
import { MODULES_ONLY_IN_22 } from './names.js';

/** What `--server-root`, `--define`, `--env` and `--env-file` give Apache's reader. */
export interface ApacheReaderOptions {
  /** ServerRoot before the config sets one (httpd's `-d`). */
  readonly serverRoot?: string;
  /** Names given with `-D`. */
  readonly defines?: readonly string[];
  /** Variables for `${VAR}`, each group with where it came from. */
  readonly env?: readonly GivenEnvironment[];
}

declare module '../../core/language.js' {
  interface LanguageConfigs {
    apache: ApacheConfig;
  }
  interface LanguageReaderOptions {
    apache: ApacheReaderOptions;
  }
  interface LanguageVisitors {
    apache: ApacheVisitors;
  }
}

/** Apache httpd: `apache2.conf`/`httpd.conf` and everything they Include. */
export const apacheLanguage: LanguageDefinition<'apache'> = {
  id: 'apache',
  server: 'Apache httpd',
  files: 'Apache httpd configs',
  guessedAs:
    'an Apache httpd config (its name does not say, and it does not start with a [group] header); --lang mycnf reads it as an option file',
  rules: { prefix: 'AP', title: 'Apache httpd', sample: { fence: 'apache', extension: 'conf', comment: '#' } },
  detect: {
    byName: (hostPath) => {
      const base = path.basename(hostPath).toLowerCase();
      return /\.(conf|load)$/.test(base) || base === '.htaccess' ? 'extension' : undefined;
    },
    fallback: true,
  },
  // Debian, openSUSE (whose httpd.conf sits where old Debian kept an empty one that apache2.conf includes), RHEL/Arch, FreeBSD.
  systemConfigs: (list) => [
    '/etc/apache2/apache2.conf',
    ...(list('/etc/apache2')?.includes('apache2.conf') === true ? [] : ['/etc/apache2/httpd.conf']),
    '/etc/httpd/conf/httpd.conf',
    '/usr/local/etc/apache24/httpd.conf',
  ],
  load(hostPath, { fs, targets, options, previous }) {
    // A tree read for another httpd release is read again: directives and defaults follow the release.
    const rebased = previous?.httpd === targets.httpd ? ApacheConfig.rebased(previous, fs) : undefined;
    return (
      rebased ??
      loadApache(hostPath, {
        fs,
        httpd: targets.httpd,
        ...(options?.serverRoot === undefined ? {} : { serverRoot: options.serverRoot }),
        ...(options?.defines === undefined ? {} : { defines: options.defines }),
        ...(options?.env === undefined ? {} : { givenEnv: options.env }),
        ...(targets.httpdInferredFrom === undefined ? {} : { httpdInferredFrom: targets.httpdInferredFrom }),
      })
    );
  },
  inferTargets(config, targets) {
    if (targets.httpdAssumed !== true) return undefined;
    const evidence = evidenceOf22(config);
    if (evidence === undefined) return undefined;
    return { ...parseTargetSpec('httpd=2.2', targets), httpdInferredFrom: evidence };
  },
  assumed(config) {
    const inferred =
      config.httpdInferredFrom === undefined
        ? []
        : [
            `httpd ${config.httpd}, inferred from the files: ${config.httpdInferredFrom} (--target httpd=2.4, target: in .tune-lint.yaml, or a probe of the host that runs it names another)`,
          ];
    const started = [...inferred, ...(config.start === undefined ? [] : [startNote(config.root.displayPath, config.start)])];
    const reason = config.fragment;
    if (reason === undefined) return started;
    const known = config.withStockModules
      ? ", read with the modules every distribution's httpd loads as installed (mod_alias, mod_access_compat, ...)"
      : '';
    return [
      ...started,
      `${config.root.displayPath} is read as a fragment (${reason})${known}: checks that need its MPM, other modules or the variables the main config and the service's environment define were not made; lint the main httpd.conf or apache2.conf to make them`,
    ];
  },
  dump: dumpApacheConfig,
  consumers: apacheConsumers,
  dispatch: dispatchApache,
  contextOf(config, at) {
    const candidate = at as typeof at & { parent?: ApacheSectionUse; order?: number };
    return 'parent' in candidate && 'order' in candidate
      ? config.context(candidate as { parent: ApacheSectionUse | undefined })
      : undefined;
  },
  settingAt: apacheSettingAt,
  api: { parseApache, ApacheDocument, loadApache },
};

/** What the distribution's start adds to the main file, as one note. */
function startNote(main: string, start: StartLayout): string {
  const commandLine = [
    ...start.defines.map((name) => `-D${name}`),
    ...start.before.map((directive) => `-C '${directive}'`),
    ...start.after.map((directive) => `-c '${directive}'`),
  ];
  const read = commandLine.length === 0 ? '' : ` (${commandLine.join(' ')})`;
  return [`${main} is read as ${start.distribution}'s start runs httpd${read}`, ...start.notes].join('; ');
}

/**
 * What shows a whole configuration to be httpd 2.2's: it loads no MPM (2.2
 * compiles its MPM in; 2.4 refuses to start without a LoadModule of one) and
 * loads a module 2.4 no longer ships, or sets its accept lock with a
 * directive 2.4 removed (LockFile, AcceptMutex: Debian's and RHEL's stock 2.2
 * files do). Undefined when nothing shows it.
 */
function evidenceOf22(config: ApacheConfig): string | undefined {
  if (config.fragment !== undefined || config.loadedMpms().length > 0) return undefined;
  const shown = [
    ...config.named('loadmodule').filter((use) => MODULES_ONLY_IN_22.has(use.args[0] ?? '')),
    ...config.named('lockfile'),
    ...config.named('acceptmutex'),
  ].map((use) => `${use.node.name}${use.name === 'loadmodule' ? ` ${use.args[0] ?? ''}` : ''} (${lineOf(use)})`);
  if (shown.length === 0) return undefined;
  const more = shown.length > 2 ? ` and ${shown.length - 2} more` : '';
  return `${shown.slice(0, 2).join(', ')}${more}, which httpd 2.4 no longer has, and no LoadModule of an MPM`;
}
