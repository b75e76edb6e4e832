import { defineMycnfRule } from '../../src/engine/define-rule.js';
import { seriesOf } from '../../src/core/targets.js';
import { mariadbOptionNames } from '../../src/languages/mycnf/mariadb-options.js';
import type { MycnfOptionUse } from '../../src/languages/mycnf/model.js';
import { NearestName } from '../../src/util/nearest-name.js';
import { shownLine } from './support/intent.js';
import { unknownNameOwner } from './support/ownership.js';

/**
 * Prefixes of the options of MariaDB plugins that are not built in (the
 * libraries in /usr/lib/mysql/plugin of the Debian packages, and the engines
 * and key managers packaged separately). Such an option is known once its
 * plugin is loaded (plugin_load_add, or INSTALL PLUGIN, which the server
 * reads from mysql.plugin at start), which an option file alone cannot show.
 */
const PLUGIN_PREFIXES = [
  'server_audit',
  'simple_password_check',
  'cracklib_password_check',
  'password_reuse_check',
  'file_key_management',
  'hashicorp_key_management',
  'aws_key_management',
  'query_response_time',
  'sql_error_log',
  'handlersocket',
  'rocksdb',
  'tokudb',
  'connect',
  'mroonga',
  'spider',
  's3',
  'columnstore',
  'oqgraph',
  'federated',
  'sphinx',
  'gssapi',
  'pam',
];

export default defineMycnfRule({
  meta: {
    id: 'MY1006',
    name: 'unknown-option',
    category: 'correctness',
    description: 'An option the server does not know stops it from starting unless it is written with loose-',
    defaultSeverity: 'error',
    recommended: true,
    fix: 'safe',
    messages: {
      unknown: { message: '{{written}}: {{product}} has no such option and refuses to start{{suggestion}}', detail: '"{{wording}}"' },
      unknownOnAssumed: {
        message:
          '{{written}}: MariaDB {{version}}, the assumed server, has no such option{{suggestion}}; if these files are for MySQL, give --target mysql=8.0',
        detail: 'MariaDB {{version}} would refuse to start: "{{wording}}"',
      },
      ambiguous: {
        message: '{{written}}: "{{name}}" begins {{count}} options, so the server refuses to start; expected the full name',
        detail: '{{candidates}}: "ambiguous option \'--{{argument}}\'"',
      },
      plugin: {
        message: '{{written}} is an option of the {{plugin}} plugin; expected loose-{{name}}',
        detail:
          'known only once the plugin is loaded; without it the server refuses to start ("{{wording}}"); with loose- it ignores the line with a warning',
      },
    },
  },
  create(ctx) {
    const target = ctx.targets.db;
    // The option list is MariaDB 10.11's: other series add and drop options, and MySQL names are not verifiable here.
    if (target.product !== 'mariadb' || seriesOf(target.version) !== '10.11') return {};
    const check = (use: MycnfOptionUse): void => {
      if ((use.status !== 'unknown' && use.status !== 'ambiguous') || use.name.loose || unknownNameOwner(use.name, target) !== undefined)
        return;
      const line = use.line;
      const written = shownLine(use);
      const argument = line.argument.slice(2);
      const wording = line.hasEquals ? `unknown variable '${argument}'` : `unknown option '--${argument}'`;
      if (use.status === 'ambiguous') {
        const shown = use.candidates.slice(0, 5).join(', ') + (use.candidates.length > 5 ? ', ...' : '');
        ctx.report({
          at: use,
          messageId: 'ambiguous',
          data: { written, name: use.name.key, count: use.candidates.length, candidates: shown, argument },
        });
        return;
      }
      const plugin = PLUGIN_PREFIXES.find((prefix) => use.name.key.startsWith(`${prefix}_`));
      if (plugin !== undefined) {
        ctx.report({
          at: use,
          messageId: 'plugin',
          severity: 'warn',
          data: { written, plugin, wording, name: line.rawName },
          fix: () => ({ file: use.file, range: [line.nameRange[0], line.nameRange[0]], text: 'loose-' }),
        });
        return;
      }
      const near = likelyOption(use.name.key);
      const suggestion = near === undefined ? '' : `; did you mean ${near}?`;
      if (target.assumed === true && near === undefined) {
        // A name MariaDB lacks may be MySQL's (gtid_mode, log_error_verbosity): not a refusal to start while the product is a guess.
        ctx.report({
          at: use,
          messageId: 'unknownOnAssumed',
          severity: 'warn',
          data: { written, version: target.version, wording, suggestion },
        });
        return;
      }
      ctx.report({ at: use, messageId: 'unknown', data: { written, product: `MariaDB ${target.version}`, wording, suggestion } });
    };
    return { option: { '*': check } };
  },
});

let nearestOption: NearestName | undefined;

/** The one option within a small edit distance of a misspelt name, if exactly one is closest. */
function likelyOption(key: string): string | undefined {
  nearestOption ??= new NearestName(mariadbOptionNames(), (name) => (name.length < 4 ? 0 : name.length < 8 ? 1 : 2));
  return nearestOption.find(key);
}
