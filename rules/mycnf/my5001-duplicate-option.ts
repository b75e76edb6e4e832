import { defineRule } from '../../src/engine/define-rule.js';
import type { LanguageRuleContext } from '../../src/engine/types.js';
import { removeMycnfLine } from '../../src/languages/mycnf/edits.js';
import type { MycnfConfig, MycnfOptionUse } from '../../src/languages/mycnf/model.js';
import { booleanValue } from '../../src/languages/mycnf/names.js';
import { parseServerSize } from '../../src/languages/mycnf/sizes.js';
import { lineOf } from '../../src/core/located.js';
import { shownLine } from './support/intent.js';
import { optionType } from '../../src/languages/mycnf/option-types.js';

/** Options each line of which adds to the setting instead of replacing it. */
const CUMULATIVE: ReadonlySet<string> = new Set([
  'plugin_load_add',
  'replicate_do_db',
  'replicate_ignore_db',
  'replicate_do_table',
  'replicate_ignore_table',
  'replicate_wild_do_table',
  'replicate_wild_ignore_table',
  'replicate_rewrite_db',
  'binlog_do_db',
  'binlog_ignore_db',
  'optimizer_switch',
  'performance_schema_instrument',
  'ignore_db_dirs',
  'ignore_db_dir',
]);

export default defineRule('mycnf', {
  meta: {
    id: 'MY5001',
    name: 'duplicate-option',
    category: 'style',
    description: 'An option is set more than once in the groups the server reads, so every line but the last is dead',
    defaultSeverity: 'warn',
    recommended: true,
    fix: 'safe',
    messages: {
      different: {
        message: '{{written}} is dead: {{name}} is set again in {{winner}}',
        detail: 'the server reads {{winner}} ({{winnerText}}) later, and it wins{{order}}',
      },
      same: {
        message: '{{written}} changes nothing; expected this line removed',
        detail: '{{winner}} sets {{name}} to the same value later ({{winnerText}}){{order}}',
      },
      replacedList: {
        message: '{{written}} is dead: plugin_load in {{winner}} replaces the list of plugins to load',
        detail: 'the server reads {{winner}} ({{winnerText}}) later; plugin_load_add adds only to what the last plugin_load set{{order}}',
      },
    },
  },
  create(ctx) {
    const mycnf = ctx.config;
    return {
      end() {
        const bySlot = new Map<string, MycnfOptionUse[]>();
        for (const use of mycnf.uses) {
          const key = use.name.key;
          if (
            key === 'set_variable' ||
            CUMULATIVE.has(key) ||
            (use.status !== 'exact' && use.status !== 'abbreviation' && use.status !== 'unverified' && use.status !== 'plugin')
          )
            continue;
          const slot = use.name.maximum ? `maximum:${key}` : key;
          const list = bySlot.get(slot);
          if (list === undefined) bySlot.set(slot, [use]);
          else list.push(use);
        }
        for (const uses of bySlot.values()) {
          const winner = uses[uses.length - 1] as MycnfOptionUse;
          for (const use of uses.slice(0, -1)) {
            // The same line read again (a file included twice) is not a second setting.
            if (use.file.path === winner.file.path && use.range[0] === winner.range[0]) continue;
            // The clients read [client-server] too: a later server-only line overrides it for the server alone.
            if (readByClients(use) && !readByClients(winner)) continue;
            const same = sameSetting(use, winner, mycnf);
            const data = {
              written: shownLine(use),
              name: winner.name.key,
              winner: lineOf(winner),
              winnerText: shownLine(winner),
              order: unorderedIncludes(use, winner, mycnf),
            };
            if (same) ctx.report({ at: use, messageId: 'same', severity: 'info', data, fix: () => removeMycnfLine(use) });
            else ctx.report({ at: use, messageId: 'different', data });
          }
        }
        reportReplacedPluginLists(ctx, mycnf, bySlot.get('plugin_load')?.at(-1));
      },
    };
  },
});

/** plugin_load_add lines before the last plugin_load: it replaces the list they added to. */
function reportReplacedPluginLists(
  ctx: LanguageRuleContext<'mycnf', Record<string, never>, 'replacedList'>,
  mycnf: MycnfConfig,
  lastLoad: MycnfOptionUse | undefined,
): void {
  if (lastLoad === undefined) return;
  for (const use of mycnf.uses) {
    if (use.order >= lastLoad.order || use.name.key !== 'plugin_load_add') continue;
    const data = {
      written: shownLine(use),
      winner: lineOf(lastLoad),
      winnerText: shownLine(lastLoad),
      order: unorderedIncludes(use, lastLoad, mycnf),
    };
    ctx.report({ at: use, messageId: 'replacedList', data });
  }
}

/** MariaDB's [client-server]: read by the server and by every client program. */
function readByClients(use: MycnfOptionUse): boolean {
  return use.group.trim().toLowerCase() === 'client-server';
}

/** Whether two lines set the option to the same thing: the same boolean, the same number of bytes, or the same text. */
function sameSetting(a: MycnfOptionUse, b: MycnfOptionUse, mycnf: MycnfConfig): boolean {
  const type = optionType(a.name.key);
  if (type === 'boolean' || a.name.implied !== undefined || b.name.implied !== undefined) {
    const left = booleanValue(a.name, a.value);
    return left !== undefined && left === booleanValue(b.name, b.value);
  }
  if (a.value === undefined || b.value === undefined) return a.value === b.value;
  if (type === 'integer') {
    const left = parseServerSize(a.value, mycnf.target, a.name.key);
    const right = parseServerSize(b.value, mycnf.target, b.name.key);
    return !('error' in left) && !('error' in right) && left.bytes === right.bytes;
  }
  return a.value === b.value;
}

/** MySQL does not promise an order for the files of one !includedir (MariaDB sorts them): then which line wins is not certain. */
function unorderedIncludes(a: MycnfOptionUse, b: MycnfOptionUse, mycnf: MycnfConfig): string {
  if (mycnf.target.product !== 'mysql' || a.file === b.file) return '';
  const entryOf = (use: MycnfOptionUse) => mycnf.files.find((entry) => entry.source === use.file);
  const left = entryOf(a);
  const right = entryOf(b);
  if (left?.via !== 'includedir' || right?.via !== 'includedir' || left.includedFrom?.directive !== right.includedFrom?.directive)
    return '';
  return `; both files come from !includedir ${left.includedFrom?.directive.path ?? ''}, whose order MySQL does not guarantee`;
}
