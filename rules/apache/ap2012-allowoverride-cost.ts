import { defineRule } from '../../src/engine/define-rule.js';
import { versionAtLeast } from '../../src/core/targets.js';
import { allowsOverrides, documentRoots, overrideSectionsAtPath, pathLevels } from '../../src/languages/apache/docroots.js';
import type { ApacheConfig, ApacheDirectiveUse, ApacheSectionUse } from '../../src/languages/apache/model.js';
import { linesByContainer, scopedSetting, type ContainerLines } from '../../src/languages/apache/scopes.js';

export default defineRule('apache', {
  meta: {
    id: 'AP2012',
    name: 'allowoverride-cost',
    category: 'performance',
    description: 'AllowOverride lets .htaccess files into a DocumentRoot, which httpd then looks for on every request',
    defaultSeverity: 'warn',
    recommended: true,
    messages: {
      override: {
        message:
          '{{directive}} {{value}} for DocumentRoot {{path}} costs a .htaccess lookup per directory on every request; expected AllowOverride None',
        detail:
          'httpd tries to open {{names}} in {{levels}} and in every subdirectory down to the requested file, and parses what it finds, since .htaccess files are never cached; move the .htaccess directives into a <Directory> section',
      },
    },
  },
  create(ctx) {
    return {
      end() {
        const apache = ctx.config;
        if (!accessFilesAllowed(apache)) return;
        const deciding = new DecidingLines(apache);
        const reported = new Set<unknown>();
        for (const root of documentRoots(apache)) {
          const here = deciding.at(root.path, root.vhost);
          if (here === undefined) continue;
          const at = here.use ?? root.at;
          if (reported.has(at)) continue;
          reported.add(at);
          const levels = pathLevels(root.path).filter((level) => deciding.at(level, root.vhost) !== undefined);
          const names = scopedSetting(apache, 'accessfilename', root.vhost).args;
          ctx.report({
            at,
            messageId: 'override',
            data: {
              directive: here.directive,
              value: here.use === undefined ? `${here.args.join(' ')} (default for httpd ${apache.httpd})` : here.args.join(' '),
              path: root.path,
              names: (names.length === 0 ? ['.htaccess'] : names).join(' and '),
              levels: levels.join(', '),
            },
          });
        }
      },
    };
  },
});

interface Override {
  readonly directive: string;
  readonly args: readonly string[];
  readonly use: ApacheDirectiveUse | undefined;
}

/**
 * What makes httpd read access files in a directory: an AllowOverride that
 * leaves an override on, or (2.4) an AllowOverrideList other than None. The lines of
 * both and the default are looked up once per lint, not per DocumentRoot.
 */
class DecidingLines {
  private readonly allow: ContainerLines;
  private readonly list: ContainerLines | undefined;
  private readonly defaultArgs: readonly string[];

  constructor(private readonly config: ApacheConfig) {
    this.allow = linesByContainer(config, 'allowoverride');
    this.list = readsOverrideList(config.httpd) ? linesByContainer(config, 'allowoverridelist') : undefined;
    this.defaultArgs = [defaultOverride(config.httpd)];
  }

  /** What lets access files into the directory, or undefined when nothing does. */
  at(directory: string, vhost: ApacheSectionUse | undefined): Override | undefined {
    const sections = overrideSectionsAtPath(this.config, directory, vhost);
    const allow = this.allow.lastIn(sections);
    const allowArgs = allow?.args ?? this.defaultArgs;
    if (allowsOverrides(allowArgs)) return { directive: allow?.node.name ?? 'AllowOverride', args: allowArgs, use: allow };
    const list = this.list?.lastIn(sections);
    if (list !== undefined && listLetsIn(list.args)) return { directive: list.node.name, args: list.args, use: list };
    return undefined;
  }
}

/**
 * Whether the default or any line lets access files in. When none does, no
 * directory reads them, whatever sections apply where: the usual config
 * (Debian's, or a host that sets None per site) is answered without working
 * out the sections of every DocumentRoot.
 */
function accessFilesAllowed(config: ApacheConfig): boolean {
  return (
    allowsOverrides([defaultOverride(config.httpd)]) ||
    config.named('allowoverride').some((use) => !isNoneAlone(use.argsText) && allowsOverrides(use.args)) ||
    (readsOverrideList(config.httpd) && config.named('allowoverridelist').some((use) => listLetsIn(use.args)))
  );
}

/** `None` as the whole text: the line a big tree repeats per site, answered without splitting its arguments. */
function isNoneAlone(argsText: string): boolean {
  return argsText.length === 4 && argsText.toLowerCase() === 'none';
}

function defaultOverride(httpd: string): string {
  return versionAtLeast(httpd, '2.3.9') ? 'None' : 'All';
}

function readsOverrideList(httpd: string): boolean {
  return versionAtLeast(httpd, '2.4');
}

/** AllowOverrideList names directives, or is `None` alone (core.c `set_override_list` refuses None beside others). */
function listLetsIn(words: readonly string[]): boolean {
  return words[0]?.toLowerCase() !== 'none';
}
