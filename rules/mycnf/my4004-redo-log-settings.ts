import { defineRule } from '../../src/engine/define-rule.js';
import { everyReleaseAtLeast, seriesOf, versionAtLeast } from '../../src/core/targets.js';
import type { TextEdit } from '../../src/engine/types.js';
import { removeMycnfLine, renameMycnfOption, replaceMycnfValue } from '../../src/languages/mycnf/edits.js';
import type { MycnfConfig, MycnfOptionUse } from '../../src/languages/mycnf/model.js';
import { formatServerSize, parseServerSize } from '../../src/languages/mycnf/sizes.js';
import { printedArgument } from '../../src/languages/mycnf/parser.js';

export default defineRule('mycnf', {
  meta: {
    id: 'MY4004',
    name: 'redo-log-settings',
    category: 'deprecation',
    description: 'The redo log is sized with the settings of another server version',
    defaultSeverity: 'warn',
    recommended: true,
    fix: 'safe',
    messages: {
      bothSet: {
        message: '{{name}} is ignored: innodb_redo_log_capacity ({{capacityAt}}) sizes the redo log; expected the line removed',
        detail: 'MySQL {{version}} logs "Ignored deprecated configuration parameter {{key}}. Used innodb_redo_log_capacity instead."',
      },
      deprecated: {
        message: '{{name}} {{verb}} deprecated since MySQL 8.0.30; expected innodb_redo_log_capacity = {{capacity}}',
        detail: 'MySQL sizes the redo log with innodb_redo_log_capacity; the same {{total}}: {{arithmetic}}{{series}}',
      },
      unknownMysql: {
        message:
          '{{name}} makes MySQL {{version}} refuse to start; expected innodb_log_file_size x innodb_log_files_in_group for the same redo size',
        detail: 'it exists from MySQL 8.0.30 on: "unknown variable \'{{argument}}\'"',
      },
      unknownMariadb: {
        message: '{{name}} makes MariaDB {{version}} refuse to start; expected innodb_log_file_size = {{value}}',
        detail:
          "it is MySQL 8.0.30's setting: \"unknown variable '{{argument}}'\"; MariaDB keeps its redo log in one file of innodb_log_file_size",
      },
    },
  },
  create(ctx) {
    const mycnf = ctx.config;
    const target = mycnf.target;
    return {
      end() {
        const capacity = mycnf.effective('innodb_redo_log_capacity');
        const size = mycnf.effective('innodb_log_file_size');
        const files = mycnf.effective('innodb_log_files_in_group');
        const name = (use: MycnfOptionUse): string => use.file.slice(use.line.nameRange);
        const argument = (use: MycnfOptionUse): string => printedArgument(use.line, use.file.encoding);
        if (target.product === 'mariadb') {
          if (capacity === undefined || capacity.name.loose) return;
          // One redo file since MariaDB 10.5: its size is the whole redo log.
          const single = versionAtLeast(target.version, '10.5');
          ctx.report({
            at: capacity,
            messageId: 'unknownMariadb',
            severity: 'error',
            data: { name: name(capacity), version: target.version, argument: argument(capacity), value: capacity.value ?? '' },
            fix: () => (single && size === undefined ? renameMycnfOption(capacity, 'innodb_log_file_size') : null),
          });
          return;
        }
        if (!versionAtLeast(target.version, '8.0.30')) {
          if (capacity !== undefined && !capacity.name.loose) {
            ctx.report({
              at: capacity,
              messageId: 'unknownMysql',
              severity: 'error',
              data: { name: name(capacity), version: target.version, argument: argument(capacity) },
            });
          }
          return;
        }
        const old = [size, files].filter((use): use is MycnfOptionUse => use !== undefined);
        if (capacity !== undefined) {
          for (const use of old) {
            ctx.report({
              at: use,
              messageId: 'bothSet',
              data: {
                name: name(use),
                key: use.name.key,
                version: target.version,
                capacityAt: `${capacity.file.displayPath}:${capacity.file.position(capacity.range[0]).line}`,
              },
              fix: () => removeAll(mycnf, use.name.key),
            });
          }
          return;
        }
        const at = size ?? files;
        if (at === undefined) return;
        const sizeBytes = size === undefined ? mycnf.defaultOf('innodb_log_file_size') : sizeOf(size, mycnf);
        const fileCount = files === undefined ? mycnf.defaultOf('innodb_log_files_in_group') : sizeOf(files, mycnf);
        if (typeof sizeBytes !== 'number' || typeof fileCount !== 'number') return;
        const total = sizeBytes * fileCount;
        const capacityText = formatServerSize(total, target);
        const everyRelease = everyReleaseAtLeast(target.version, '8.0.30');
        ctx.report({
          at,
          messageId: 'deprecated',
          severity: 'info',
          data: {
            name: old.map(name).join(' and '),
            verb: old.length === 1 ? 'is' : 'are',
            total: formatServerSize(total, target),
            capacity: capacityText,
            arithmetic: `innodb_log_file_size ${formatServerSize(sizeBytes, target)} x innodb_log_files_in_group ${fileCount}`,
            series: everyRelease
              ? ''
              : `; no fix for the target mysql=${target.version}, which stands for every ${target.version} release and those before 8.0.30 refuse innodb_redo_log_capacity: give --target mysql=${seriesOf(target.version)}.30 or later for the fix`,
          },
          // A target of a series stands for all its releases: a fix must be valid on each of them.
          fix: () => (everyRelease ? translate(mycnf, at, capacityText) : null),
        });
      },
    };
  },
});

function sizeOf(use: MycnfOptionUse, mycnf: MycnfConfig): number | undefined {
  if (use.value === undefined) return undefined;
  const parsed = parseServerSize(use.value, mycnf.target, use.name.key);
  return 'error' in parsed ? undefined : parsed.bytes;
}

/** Every line that sets the key goes: a dead earlier line would otherwise come back to life. */
function removeAll(mycnf: MycnfConfig, key: string): TextEdit[] | null {
  const edits = mycnf.uses.filter((use) => use.name.key === key).map(removeMycnfLine);
  return edits.some((edit) => edit === null) ? null : (edits as TextEdit[]);
}

/** The line in effect becomes innodb_redo_log_capacity with the same total; every other redo-size line goes. */
function translate(mycnf: MycnfConfig, at: MycnfOptionUse, capacity: string): TextEdit[] | null {
  const renamed = renameMycnfOption(at, 'innodb_redo_log_capacity');
  const revalued = replaceMycnfValue(at, capacity);
  const others = mycnf.uses
    .filter((use) => use !== at && (use.name.key === 'innodb_log_file_size' || use.name.key === 'innodb_log_files_in_group'))
    .map(removeMycnfLine);
  if (renamed === null || revalued === null || others.some((edit) => edit === null)) return null;
  return [renamed, revalued, ...(others as TextEdit[])];
}
