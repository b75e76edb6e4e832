import { defineRule } from '../../src/engine/define-rule.js';
import { versionAtLeast } from '../../src/core/targets.js';
import { documentRoots, linesAtPath } from '../../src/languages/apache/docroots.js';
import type { ApacheDirectiveUse } from '../../src/languages/apache/model.js';
import { effectiveSetting } from '../../src/languages/apache/settings.js';

/** What `Options All` turns on (core.c OPT_ALL): everything but MultiViews and SymLinksIfOwnerMatch. */
const ALL = ['indexes', 'includes', 'followsymlinks', 'execcgi'];
const SYMLINK_WORDS = new Set(['followsymlinks', 'symlinksifownermatch', 'all', 'none']);

export default defineRule('apache', {
  meta: {
    id: 'AP2016',
    name: 'per-request-overheads',
    category: 'performance',
    description: 'Symlink checks or extended status add system calls to every request',
    defaultSeverity: 'info',
    recommended: false,
    messages: {
      symlinks: {
        message:
          'Options for DocumentRoot {{path}} {{state}}, an lstat() per directory level on every request; expected Options FollowSymLinks there',
        detail:
          'httpd lstat()s each component of every requested path to check for symlinks{{owner}}; keep the stricter setting only where it is needed',
      },
      extendedStatus: {
        message:
          'ExtendedStatus {{value}}{{why}} costs scoreboard writes on every request; expected ExtendedStatus Off unless /server-status must show each worker',
        detail:
          "httpd records each request's client, virtual host, request line and times in the shared scoreboard, with extra clock calls",
      },
    },
  },
  create(ctx) {
    return {
      end() {
        const apache = ctx.config;
        const reported = new Set<unknown>();
        for (const root of documentRoots(apache)) {
          const options = optionsAt(linesAtPath(apache, 'options', root.path, root.vhost), versionAtLeast(apache.httpd, '2.3.11'));
          const follow = options.set.has('followsymlinks');
          const owner = options.set.has('symlinksifownermatch');
          if (follow && !owner) continue;
          const at = options.decidedBy ?? root.at;
          if (reported.has(at)) continue;
          reported.add(at);
          ctx.report({
            at,
            messageId: 'symlinks',
            data: {
              path: root.path,
              state: owner ? 'include SymLinksIfOwnerMatch' : 'lack FollowSymLinks',
              owner: owner ? ", and the owner of every link is compared with its target's, a result httpd cannot cache" : '',
            },
          });
        }

        const explicit = effectiveSetting(apache, 'extendedstatus').use;
        const status = apache.modules.get('status_module');
        if (explicit !== undefined) {
          if (explicit.args[0]?.toLowerCase() === 'on')
            ctx.report({ at: explicit, messageId: 'extendedStatus', data: { value: explicit.args[0], why: '' } });
        } else if (status?.use !== undefined && versionAtLeast(apache.httpd, '2.3.6')) {
          ctx.report({
            at: status.use,
            messageId: 'extendedStatus',
            data: { value: 'On', why: ' (the default once mod_status is loaded, since httpd 2.3.6)' },
          });
        }
      },
    };
  },
});

/**
 * The Options in effect after a sequence of Options lines, merged as httpd
 * does: a line of plain words replaces the set, a line of +/- words changes
 * it; with the last line that decided FollowSymLinks or SymLinksIfOwnerMatch.
 */
function optionsAt(
  lines: readonly ApacheDirectiveUse[],
  followByDefault: boolean,
): { set: Set<string>; decidedBy: ApacheDirectiveUse | undefined } {
  const set = new Set(followByDefault ? ['followsymlinks'] : ALL);
  let decidedBy: ApacheDirectiveUse | undefined;
  for (const line of lines) {
    const words = line.args.map((word) => word.toLowerCase());
    const relative = words.every((word) => word.startsWith('+') || word.startsWith('-'));
    // httpd 2.4 refuses a line that mixes both forms ("Either all Options must start with + or -, or no Option may").
    if (!relative && words.some((word) => word.startsWith('+') || word.startsWith('-'))) continue;
    if (!relative) set.clear();
    for (const word of words) {
      const name = relative ? word.slice(1) : word;
      const expanded = name === 'all' ? ALL : name === 'none' ? [] : [name];
      if (relative && word.startsWith('-')) for (const option of expanded) set.delete(option);
      else for (const option of expanded) set.add(option);
    }
    if (!relative || words.some((word) => SYMLINK_WORDS.has(word.slice(1)))) decidedBy = line;
  }
  return { set, decidedBy };
}
