import { defineRule } from '../../src/engine/define-rule.js';
import { vhostOf } from '../../src/languages/apache/docroots.js';
import type { ApacheConfig, ApacheDirectiveUse, ApacheSectionUse } from '../../src/languages/apache/model.js';
import { atoi } from '../../src/languages/apache/mpm.js';
import { linesByContainer } from '../../src/languages/apache/scopes.js';
import { formatBytes } from '../../src/util/units.js';

/** mod_deflate's DeflateInflateRatioLimit when not set. */
const DEFAULT_INFLATE_RATIO = 200;

export default defineRule('apache', {
  meta: {
    id: 'AP2014',
    name: 'costly-input-filter',
    category: 'performance',
    description: 'Request bodies go through filters that cost CPU and memory on every upload',
    defaultSeverity: 'info',
    recommended: true,
    messages: {
      bodyInspection: {
        message: 'SecRequestBodyAccess On with SecRuleEngine {{engine}} inspects every request body before the application sees it',
        detail:
          'mod_security reads the whole body of every request that has one{{limits}} and runs its phase-2 rules over it: CPU and memory on every upload and form post',
      },
      inflate: {
        message: '{{directive}} {{filters}} inflates every gzip-encoded request body{{scope}}',
        detail:
          'CPU on every compressed upload before the application sees it, and a body may grow to {{ratio}} times its compressed size (DeflateInflateRatioLimit{{ratioNote}})',
      },
    },
  },
  create(ctx) {
    const apache = ctx.config;
    const bodyAccess = new Map<ApacheSectionUse | undefined, ApacheDirectiveUse>();
    const inflating: ApacheDirectiveUse[] = [];
    const hasDeflate = (filters: string | undefined): boolean =>
      (filters ?? '').split(';').some((filter) => filter.trim().toLowerCase() === 'deflate');
    return {
      directive: {
        secrequestbodyaccess(use) {
          bodyAccess.set(apache.container(use), use);
        },
        setinputfilter(use) {
          if (hasDeflate(use.args.join(''))) inflating.push(use);
        },
        addinputfilter(use) {
          if (hasDeflate(use.args[0])) inflating.push(use);
        },
      },
      end() {
        if (apache.hasModule('security2_module')) {
          for (const use of bodyAccess.values()) {
            if (use.args[0]?.toLowerCase() !== 'on') continue;
            const engine = settingNear(apache, 'secruleengine', use)?.args[0] ?? 'Off';
            if (engine.toLowerCase() === 'off') continue;
            const limit = settingNear(apache, 'secrequestbodylimit', use);
            const inMemory = settingNear(apache, 'secrequestbodyinmemorylimit', use);
            const parts = [
              ...(limit === undefined ? [] : [`up to SecRequestBodyLimit ${formatBytes(atoi(limit.args[0]))}`]),
              ...(inMemory === undefined
                ? []
                : [`in memory up to SecRequestBodyInMemoryLimit ${formatBytes(atoi(inMemory.args[0]))}, the rest in temporary files`]),
            ];
            ctx.report({
              at: use,
              messageId: 'bodyInspection',
              data: { engine, limits: parts.length === 0 ? '' : ` (${parts.join('; ')})` },
            });
          }
        }
        if (apache.hasModule('deflate_module')) {
          const ratio = linesByContainer(apache, 'deflateinflateratiolimit').last(undefined);
          for (const use of inflating) {
            const extensions = use.name === 'addinputfilter' ? use.args.slice(1) : [];
            ctx.report({
              at: use,
              messageId: 'inflate',
              data: {
                directive: use.node.name,
                filters: use.name === 'addinputfilter' ? (use.args[0] ?? '') : use.args.join(' '),
                scope: extensions.length === 0 ? '' : ` for ${extensions.join(' ')}`,
                ratio: ratio === undefined ? DEFAULT_INFLATE_RATIO : atoi(ratio.args[0]),
                ratioNote: ratio === undefined ? ', default' : '',
              },
            });
          }
        }
      },
    };
  },
});

/** The last line of a directive in the same section as `use`, else in its `<VirtualHost>`, else at server level. */
function settingNear(config: ApacheConfig, lowerName: string, use: ApacheDirectiveUse): ApacheDirectiveUse | undefined {
  const lines = linesByContainer(config, lowerName);
  for (const scope of [config.container(use), vhostOf(use), undefined]) {
    const found = lines.last(scope);
    if (found !== undefined) return found;
  }
  return undefined;
}
