import { defineRule } from '../../src/engine/define-rule.js';
import type { LanguageRuleContext } from '../../src/engine/types.js';
import type { DatabaseTarget } from '../../src/core/targets.js';
import type { TextEdit } from '../../src/engine/types.js';
import { groupKey } from '../../src/languages/mycnf/groups.js';
import { removeMycnfLine, renameMycnfOption, replaceMycnfValue } from '../../src/languages/mycnf/edits.js';
import type { MycnfOptionUse } from '../../src/languages/mycnf/model.js';
import { isClientOption } from '../../src/languages/mycnf/client-programs.js';
import { intendedOptions, shownLine, writtenKey, type IntendedOption } from './support/intent.js';
import {
  mariadbNoop,
  mariadbRemoval,
  REMOVED_WARNING,
  mysqlStatus,
  removedOption,
  type RemovedOption,
  type Replacement,
} from '../../src/languages/mycnf/removed-options.js';
import { printedArgument } from '../../src/languages/mycnf/parser.js';

export default defineRule('mycnf', {
  meta: {
    id: 'MY4002',
    name: 'removed-option',
    category: 'deprecation',
    description: 'An option the target version removed: the server refuses it, or accepts it only to ignore it',
    defaultSeverity: 'error',
    recommended: true,
    fix: 'safe',
    messages: {
      refused: {
        message: '{{written}}: {{name}} {{history}}, so the server refuses to start; instead: {{instead}}',
        detail: '"{{wording}}"{{setVariable}}',
      },
      loose: {
        message: '{{written}}: {{name}} {{history}} and does nothing; instead: {{instead}}',
        detail: 'with loose- the server skips the line with a warning{{setVariable}}',
      },
      deprecated: {
        message: '{{written}}: {{name}} is deprecated since MySQL {{deprecated}}; instead: {{instead}}',
        detail: 'removed in {{removed}}{{setVariable}}',
      },
      alias: {
        message: '{{written}}: {{name}} is the old name of {{to}}; expected {{to}}',
        detail: 'MariaDB still accepts it as a deprecated alias{{setVariable}}',
      },
      noop: {
        message: '{{written}}: {{name}} does nothing on MariaDB {{version}}; expected the line removed',
        detail: 'the server says so at every start: "\'{{dashed}}\' {{warning}}"{{setVariable}}',
      },
    },
  },
  create(ctx) {
    const mycnf = ctx.config;
    const target = mycnf.target;
    return {
      end() {
        for (const option of intendedOptions(mycnf)) {
          const written = writtenKey(option.name);
          // A client option in [client-server] belongs to the clients that read it there (MY1007).
          if (groupKey(option.use.group) === 'client-server' && isClientOption(written)) continue;
          const finding = classify(option, written, target);
          if (finding === undefined) continue;
          reportFinding(ctx, option, written, finding);
        }
      },
    };
  },
});

/** Reports one removed, deprecated, renamed or ignored option, with the server's own wording where it refuses it. */
function reportFinding(ctx: LanguageRuleContext<'mycnf'>, option: IntendedOption, written: string, finding: Finding): void {
  const use = option.use;
  const target = ctx.config.target;
  const data = {
    written: shownLine(use),
    name: option.viaSetVariable ? option.name.raw : use.file.slice(use.line.nameRange).replace(/^loose[-_]/i, ''),
    setVariable: option.viaSetVariable
      ? ` (the option inside set-variable, which MY4001 rewrites to ${option.name.raw} = ${option.value ?? ''})`
      : '',
    version: target.version,
    dashed: written.replaceAll('_', '-'),
  };
  const fix = option.viaSetVariable ? () => null : () => replace(use, finding.replacement, option.value);
  switch (finding.kind) {
    case 'refused':
    case 'loose':
      ctx.report({
        at: use,
        messageId: finding.kind,
        data: { ...data, history: historyOf(finding.entry, target), wording: refusalWording(option), instead: finding.entry.instead },
        ...(finding.kind === 'loose' ? { severity: 'warn' as const } : {}),
        fix,
      });
      return;
    case 'deprecated':
      ctx.report({
        at: use,
        messageId: 'deprecated',
        severity: 'info',
        data: {
          ...data,
          deprecated: finding.entry.mysql?.deprecated ?? '',
          removed: finding.entry.mysql?.removed ?? '',
          instead: finding.entry.instead,
        },
        fix,
      });
      return;
    case 'alias':
      ctx.report({ at: use, messageId: 'alias', severity: 'info', data: { ...data, to: option.name.key }, fix });
      return;
    case 'noop':
      ctx.report({
        at: use,
        messageId: 'noop',
        severity: finding.mysqlOnly ? 'info' : 'warn',
        data: { ...data, warning: finding.warning },
        // A MySQL option MariaDB ignores is MySQL's own setting when the product is only assumed: removing it would change a MySQL server.
        ...(finding.mysqlOnly && target.assumed === true ? {} : { fix }),
      });
  }
}

function historyOf(entry: RemovedOption, target: DatabaseTarget): string {
  if (target.product === 'mysql') return `was removed in MySQL ${entry.mysql?.removed ?? ''}`;
  if (entry.mariadb !== undefined) return `was removed in MariaDB ${entry.mariadb.removed}`;
  return entry.mysql === undefined
    ? `is not an option of MariaDB ${target.version}`
    : `was removed in MySQL ${entry.mysql.removed} and is not an option of MariaDB ${target.version}`;
}

/** What the server says as it refuses the option. */
function refusalWording(option: IntendedOption): string {
  const line = option.use.line;
  const argument = printedArgument(line, option.use.file.encoding);
  const shown = option.viaSetVariable ? `${option.name.raw}=${option.value ?? ''}` : argument;
  if (option.status === 'ambiguous') return `ambiguous option '--${shown}'`;
  return option.viaSetVariable || line.hasEquals ? `unknown variable '${shown}'` : `unknown option '--${shown}'`;
}

type Finding =
  | { readonly kind: 'refused' | 'loose' | 'deprecated'; readonly entry: RemovedOption; readonly replacement: Replacement | undefined }
  | { readonly kind: 'alias'; readonly replacement: Replacement }
  | { readonly kind: 'noop'; readonly mysqlOnly: boolean; readonly warning: string; readonly replacement: Replacement };

function classify(option: IntendedOption, written: string, target: DatabaseTarget): Finding | undefined {
  const entry = removedOption(written);
  if (target.product === 'mysql') {
    if (entry === undefined) return undefined;
    const status = mysqlStatus(entry, target);
    if (status === undefined) return undefined;
    // A deprecated option still works: only a replacement that does the same is a fix, and the query cache's deprecation is MY2005's to mention.
    if (status === 'deprecated') {
      if (entry.names.includes('query_cache_size')) return undefined;
      return { kind: 'deprecated', entry, replacement: entry.replacement?.kind === 'drop' ? undefined : entry.replacement };
    }
    return { kind: option.name.loose ? 'loose' : 'refused', entry, replacement: entry.replacement };
  }
  const later = entry === undefined ? undefined : laterMariadbRemoval(option, entry, target);
  if (later !== undefined) return later;
  const noop = mariadbNoop(option.name.key, target);
  if (noop !== undefined && option.status === 'exact') return { kind: 'noop', ...noop, replacement: { kind: 'drop' } };
  if (entry === undefined) return undefined;
  if (option.status === 'unknown' || option.status === 'ambiguous')
    return { kind: option.name.loose ? 'loose' : 'refused', entry, replacement: entry.replacement };
  if (option.name.alias === written && entry.replacement?.kind === 'rename') return { kind: 'alias', replacement: entry.replacement };
  return undefined;
}

/** An option MariaDB removed after 10.11, on a target at or past that release. */
function laterMariadbRemoval(option: IntendedOption, entry: RemovedOption, target: DatabaseTarget): Finding | undefined {
  const removal = mariadbRemoval(entry, target);
  if (removal === undefined) return undefined;
  if (removal.noop) return { kind: 'noop', mysqlOnly: false, warning: REMOVED_WARNING, replacement: { kind: 'drop' } };
  return { kind: option.name.loose ? 'loose' : 'refused', entry, replacement: entry.replacement };
}

function replace(use: MycnfOptionUse, replacement: Replacement | undefined, value: string | undefined): TextEdit | TextEdit[] | null {
  if (replacement === undefined) return null;
  switch (replacement.kind) {
    case 'drop':
      return removeMycnfLine(use);
    case 'rename':
      return renameMycnfOption(use, replacement.to);
    case 'map': {
      const mapped = value === undefined ? undefined : replacement.values(value);
      const renamed = renameMycnfOption(use, replacement.to);
      const revalued = mapped === undefined ? null : replaceMycnfValue(use, mapped);
      return renamed === null || revalued === null ? null : [renamed, revalued];
    }
    case 'split':
      return split(use, replacement.flag, replacement.file);
  }
}

/**
 * `log-slow-queries = /var/log/mysql/slow.log` becomes `slow_query_log = 1`
 * and `slow_query_log_file = /var/log/mysql/slow.log` on two lines, in the
 * name's dash style, with the line's spacing and indentation; bare, it
 * becomes the switch alone.
 */
function split(use: MycnfOptionUse, flag: string, file: string): TextEdit | null {
  const line = use.line;
  if (use.name.prefixes.length > 0) return null;
  if (!line.hasEquals) return renameMycnfOption(use, flag);
  if (line.valueRange === undefined || line.valueRange[0] === line.valueRange[1]) return null;
  const text = use.file.text;
  const written = use.file.slice(line.nameRange);
  const dashes = written.split('-').length > written.split('_').length;
  const styled = (name: string): string => (dashes ? name.replaceAll('_', '-') : name);
  const equals = text.indexOf('=', line.nameRange[1]);
  const around = `${text.slice(line.nameRange[1], equals)}=${text.slice(equals + 1, line.valueRange[0])}`;
  const indent = text.slice(line.range[0], line.nameRange[0]);
  const eol = line.eol === '' ? use.file.eol : line.eol;
  return {
    file: use.file,
    range: [line.nameRange[0], line.valueRange[0]],
    text: `${styled(flag)}${around}1${eol}${indent}${styled(file)}${around}`,
  };
}
