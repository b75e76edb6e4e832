import { lineOf } from '../../src/core/located.js';
import { defineRule } from '../../src/engine/define-rule.js';
import { seriesOf } from '../../src/core/targets.js';
import { isMariadbOption } from '../../src/languages/mycnf/mariadb-options.js';
import { mariadbSeriesNames } from '../../src/languages/mycnf/options.js';
import { compareMysqlSeries, mysqlOptionList, mysqlPluginOf, mysqlSeriesTaking } from '../../src/languages/mycnf/mysql-names.js';
import type { DatabaseTarget } from '../../src/core/targets.js';
import { loadedPlugins, pluginLibraryOf } from '../../src/languages/mycnf/plugins.js';
import type { MycnfConfig, MycnfOptionUse } from '../../src/languages/mycnf/model.js';
import { codePointsBeyondAscii } from '../../src/util/ascii.js';
import { NearestName } from '../../src/util/nearest-name.js';
import { shownLine } from './support/intent.js';
import { unknownNameOwner } from './support/ownership.js';
import { printedArgument } from '../../src/languages/mycnf/parser.js';

/**
 * Plugins whose libraries Debian's MariaDB packages do not ship, so the
 * generated table cannot list their options: an option with one of these
 * prefixes is taken for theirs.
 */
const UNLISTED_PLUGINS = ['aws_key_management', 'columnstore'];

export default defineRule('mycnf', {
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
      pluginReplaced: {
        message:
          '{{written}} is an option of the {{plugin}} plugin, which plugin_load in {{reset}} drops from the plugins to load; expected loose-{{name}}',
        detail:
          'plugin_load replaces the list earlier plugin_load_add lines built; without the plugin the server refuses to start ("{{wording}}"); with loose- it ignores the line with a warning',
      },
      droppedSince: {
        message: '{{written}}: MySQL {{last}} took {{name}}, MySQL {{version}} has no such option and refuses to start',
        detail:
          '"{{wording}}"; the option was dropped in a series after {{last}}: the release notes of the series between name what replaces it',
      },
      variant: {
        message:
          '{{written}}: {{name}} is an option of {{builds}}, not of MySQL {{version}}; without such a build the server refuses to start',
        detail: 'Oracle MySQL {{version}} says "{{wording}}"; a build that has it takes it',
      },
      plugin: {
        message:
          '{{written}} is an option of the {{plugin}} plugin, which no plugin_load_add in the server groups loads; expected loose-{{name}}',
        detail:
          'known only once the plugin is loaded (plugin_load_add = {{plugin}}, or INSTALL PLUGIN, which the server reads from mysql.plugin at start); without it the server refuses to start ("{{wording}}"); with loose- it ignores the line with a warning',
      },
    },
  },
  create(ctx) {
    const target = ctx.targets.db;
    const names = knownNames(target);
    // Without a list of the target's names only MySQL's MariaDB-only names (status unknown) can be judged.
    if (names === undefined && target.product === 'mariadb') return {};
    const check = (use: MycnfOptionUse): void => {
      if (!isMine(use, target)) return;
      const line = use.line;
      const written = shownLine(use);
      const argument = printedArgument(line, use.file.encoding);
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
      const plugin = pluginOf(use.name.key, target);
      if (plugin !== undefined) {
        const reset = droppingLine(ctx.config, plugin);
        ctx.report({
          at: use,
          messageId: reset === undefined ? 'plugin' : 'pluginReplaced',
          severity: 'warn',
          data: { written, plugin, wording, name: line.rawName, reset: reset === undefined ? '' : lineOf(reset) },
          fix: () => ({ file: use.file, range: [line.nameRange[0], line.nameRange[0]], text: 'loose-' }),
        });
        return;
      }
      const last = names === undefined ? undefined : droppedAfter(use.name.key, target);
      if (last !== undefined) {
        ctx.report({ at: use, messageId: 'droppedSince', data: { written, name: use.name.key, last, version: target.version, wording } });
        return;
      }
      const builds = target.product === 'mysql' ? variantBuilds(use.name.key) : undefined;
      if (builds !== undefined || names === undefined) {
        ctx.report({
          at: use,
          messageId: 'variant',
          severity: 'warn',
          data: { written, name: use.name.key, builds: builds ?? 'MariaDB', version: target.version, wording },
        });
        return;
      }
      const near = likelyOption(names, use.name.key);
      // A name that looks like one the server knows may differ in a character beyond ASCII, which no option name has.
      const beyond = codePointsBeyondAscii(line.rawName);
      const suggestion =
        (near === undefined ? '' : `; did you mean ${near}?`) +
        (beyond.length === 0 ? '' : ` (${beyond.join(', ')} in the name: no option name has a character beyond ASCII)`);
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
      const product = target.product === 'mysql' ? `MySQL ${target.version}` : `MariaDB ${target.version}`;
      ctx.report({ at: use, messageId: 'unknown', data: { written, product, wording, suggestion } });
    };
    return { option: { '*': check } };
  },
});

/** The plugin an option is named after: MySQL's by their variables' prefixes, MariaDB's by the libraries Debian ships and those it does not. */
function pluginOf(key: string, target: DatabaseTarget): string | undefined {
  if (target.product === 'mysql') return mysqlPluginOf(key);
  return pluginLibraryOf(key) ?? UNLISTED_PLUGINS.find((prefix) => key.startsWith(`${prefix}_`));
}

/** The last MySQL series that took a name the target's series dropped (master_info_repository after 8.0), if it is one. */
function droppedAfter(key: string, target: DatabaseTarget): string | undefined {
  if (target.product !== 'mysql') return undefined;
  const last = mysqlSeriesTaking(key).at(-1);
  return last !== undefined && compareMysqlSeries(last, seriesOf(target.version)) < 0 ? last : undefined;
}

/** The plugin_load line that drops a library an earlier plugin_load or plugin_load_add loaded, if one does. */
function droppingLine(config: MycnfConfig, library: string): MycnfOptionUse | undefined {
  const reset = config.effective('plugin_load');
  if (reset === undefined) return undefined;
  const earlier = config.uses.filter(
    (use) => use.order < reset.order && (use.name.key === 'plugin_load' || use.name.key === 'plugin_load_add'),
  );
  const loaded = loadedPlugins(earlier.map((use) => ({ key: 'plugin_load_add', value: use.value })));
  return loaded.some((entry) => entry.library === library) ? reset : undefined;
}

/** An unknown or ambiguous name, not written loose-, that no other rule explains better. */
function isMine(use: MycnfOptionUse, target: DatabaseTarget): boolean {
  if (use.status !== 'unknown' && use.status !== 'ambiguous') return false;
  return !use.name.loose && unknownNameOwner(use.name, target) === undefined;
}

/**
 * The builds of MySQL and its forks that take a name Oracle's MySQL does not:
 * a file for Percona XtraDB Cluster or MySQL Cluster is linted with a MySQL
 * target too, and a MariaDB name may be Percona Server's as well.
 */
function variantBuilds(key: string): string | undefined {
  if (/^(?:wsrep|pxc)_/.test(key)) return 'Galera builds (Percona XtraDB Cluster, MySQL-wsrep)';
  if (key.startsWith('ndb')) return 'MySQL NDB Cluster builds';
  return isMariadbOption(key) ? 'MariaDB (or a MySQL fork such as Percona Server)' : undefined;
}

/** The option names of the target, when tune-lint has its series' list: MariaDB 10.11 and 11.8, MySQL 5.7, 8.0 and 9.7. */
function knownNames(target: DatabaseTarget): readonly string[] | undefined {
  if (target.product === 'mysql') return mysqlOptionList(target)?.all();
  return mariadbSeriesNames(target);
}

const nearest = new Map<readonly string[], NearestName>();

/** The one option within a small edit distance of a misspelt name, if exactly one is closest. */
function likelyOption(names: readonly string[], key: string): string | undefined {
  let finder = nearest.get(names);
  if (finder === undefined) {
    finder = new NearestName(names, (name) => (name.length < 4 ? 0 : name.length < 8 ? 1 : 2));
    nearest.set(names, finder);
  }
  return finder.find(key);
}
