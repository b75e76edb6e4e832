import * as path from 'node:path';
import { defineRule } from '../../src/engine/define-rule.js';
import { versionAtLeast } from '../../src/core/targets.js';
import type { TextEdit } from '../../src/engine/types.js';
import { inCaseOf, removeApacheLine } from '../../src/languages/apache/edits.js';
import type { ApacheConfig, ApacheDirectiveUse } from '../../src/languages/apache/model.js';
import { lookupTable } from '../../src/util/lookup.js';

/** Mutex mechanisms httpd 2.2 and the 2.4 Mutex directive name alike (no path, so nothing to reinterpret). */
const MECHANISMS = new Set(['default', 'fcntl', 'flock', 'posixsem', 'pthread', 'sysvsem', 'sem']);

interface Removed {
  /** What takes its place in 2.4, for the message. */
  readonly instead: (use: ApacheDirectiveUse, apache: ApacheConfig) => string;
  /** The exact 2.4 equivalent, when there is one. */
  readonly fix?: (use: ApacheDirectiveUse, apache: ApacheConfig) => TextEdit | null;
}

const REMOVED: Readonly<Record<string, Removed>> = lookupTable({
  lockfile: {
    instead: (use) => `Mutex file:${path.posix.dirname(use.args[0] ?? '/var/lock/x')} default, if the lock files must live there`,
  },
  acceptmutex: {
    instead: (use, apache) =>
      apache.mpm?.name === 'event' ? 'nothing: the event MPM has no accept mutex' : `Mutex ${mechanism(use) ?? use.argsText} mpm-accept`,
    fix: (use, apache) => {
      const chosen = mechanism(use);
      if (chosen === undefined) return null;
      return apache.mpm?.name === 'event'
        ? removeApacheLine(use)
        : rewriteLine(use, `${inCaseOf(use.node.name, 'Mutex')} ${chosen} mpm-accept`);
    },
  },
  rewritelock: {
    instead: (use) => `Mutex file:${path.posix.dirname(use.args[0] ?? '/var/lock/x')} rewrite-map, if the lock file must live there`,
  },
  rewritelog: {
    instead: (_use, apache) =>
      rewriteTraceLevel(apache) === 0
        ? 'nothing: RewriteLogLevel is 0, so nothing was logged'
        : `LogLevel rewrite:trace${rewriteTraceLevel(apache)}, which logs to the error log`,
    fix: (use, apache) => (rewriteTraceLevel(apache) === 0 ? removeApacheLine(use) : null),
  },
  rewriteloglevel: {
    instead: (use) =>
      levelOf(use) === 0
        ? 'nothing: level 0 logged nothing'
        : `LogLevel rewrite:trace${Math.min(levelOf(use), 8)}, which logs to the error log`,
    fix: (use) => (levelOf(use) === 0 ? removeApacheLine(use) : null),
  },
  sslmutex: {
    instead: (use) => `Mutex ${mechanism(use) ?? '<mechanism>[:<directory>]'} ssl-cache`,
    fix: (use) => {
      const chosen = mechanism(use);
      return chosen === undefined ? null : rewriteLine(use, `${inCaseOf(use.node.name, 'Mutex')} ${chosen} ssl-cache`);
    },
  },
  sslstaplingmutex: {
    instead: (use) => `Mutex ${mechanism(use) ?? '<mechanism>[:<directory>]'} ssl-stapling`,
    fix: (use) => {
      const chosen = mechanism(use);
      return chosen === undefined ? null : rewriteLine(use, `${inCaseOf(use.node.name, 'Mutex')} ${chosen} ssl-stapling`);
    },
  },
  watchdogmutexpath: { instead: (use) => `Mutex file:${use.args[0] ?? '<directory>'} watchdog-callback` },
  dumpiologlevel: { instead: () => 'LogLevel dumpio:trace7' },
  ...Object.fromEntries(
    [
      'authzldapauthoritative',
      'authzuserauthoritative',
      'authzgroupfileauthoritative',
      'authzdbmauthoritative',
      'authzownerauthoritative',
      'authzdefaultauthoritative',
      'authdbmauthoritative',
      'anonymous_authoritative',
    ].map((name) => [
      name,
      { instead: () => 'nothing: 2.4 combines authorization providers with <RequireAny> and <RequireAll>' } satisfies Removed,
    ]),
  ),
});

/** The names httpd 2.4 no longer knows that this rule reports; AP1015 leaves them to it. */
export const REMOVED_IN_24: ReadonlySet<string> = new Set(Object.keys(REMOVED));

export default defineRule('apache', {
  meta: {
    id: 'AP4003',
    name: 'removed-directive',
    category: 'deprecation',
    description:
      'A directive removed in httpd 2.4 (LockFile, AcceptMutex, RewriteLog, SSLMutex, Authz*Authoritative...) stops httpd from starting',
    defaultSeverity: 'error',
    recommended: true,
    fix: 'safe',
    messages: {
      removed: {
        message: '{{written}} was removed in httpd 2.4, so httpd refuses to start; expected {{instead}}',
        detail: '"Invalid command \'{{name}}\', perhaps misspelled or defined by a module not included in the server configuration"',
      },
    },
  },
  create(ctx) {
    const apache = ctx.config;
    if (!versionAtLeast(ctx.targets.httpd, '2.4')) return {};
    const report = (use: ApacheDirectiveUse): void => {
      const removed = REMOVED[use.name] as Removed;
      const fix = removed.fix;
      ctx.report({
        at: use,
        messageId: 'removed',
        data: { written: `${use.node.name} ${use.argsText}`.trim(), name: use.node.name, instead: removed.instead(use, apache) },
        ...(fix === undefined ? {} : { fix: () => fix(use, apache) }),
      });
    };
    return { directive: Object.fromEntries(Object.keys(REMOVED).map((name) => [name, report])) };
  },
});

/** The mechanism of AcceptMutex/SSLMutex when 2.4's Mutex takes it as it is (`yes` was 2.2's name for default). */
function mechanism(use: ApacheDirectiveUse): string | undefined {
  const value = use.args.length === 1 ? (use.args[0] as string).toLowerCase() : undefined;
  if (value === 'yes') return 'default';
  return value !== undefined && MECHANISMS.has(value) ? value : undefined;
}

function levelOf(use: ApacheDirectiveUse): number {
  return Number.parseInt(use.args[0] ?? '0', 10) || 0;
}

/** The highest RewriteLogLevel in the configuration (0 when none): what RewriteLog wrote. */
function rewriteTraceLevel(apache: ApacheConfig): number {
  return Math.min(8, Math.max(0, ...apache.named('rewriteloglevel').map(levelOf)));
}

/** Replaces the directive's text, keeping its indentation and line ending. */
function rewriteLine(use: ApacheDirectiveUse, text: string): TextEdit | null {
  if (use.variables.length > 0 || use.node.line.physicalLines > 1) return null;
  return { file: use.file, range: use.node.line.content, text };
}
