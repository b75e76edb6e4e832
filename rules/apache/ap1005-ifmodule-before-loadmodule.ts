import { defineRule } from '../../src/engine/define-rule.js';
import { directiveCount } from '../../src/languages/apache/blocks.js';

export default defineRule('apache', {
  meta: {
    id: 'AP1005',
    name: 'ifmodule-before-loadmodule',
    category: 'correctness',
    description: "<IfModule> is evaluated where httpd reads it, so a block above the module's LoadModule sees the module as absent",
    defaultSeverity: 'warn',
    recommended: true,
    messages: {
      skipped: {
        message:
          '<IfModule {{subject}}> comes before {{module}} is loaded at {{load}}, so httpd skips its {{lines}}; expected the block after the LoadModule',
        detail: 'httpd decides <IfModule> where it stands, and the module is not loaded yet there',
      },
      appliedAnyway: {
        message:
          '<IfModule !{{subject}}> comes before {{module}} is loaded at {{load}}, so httpd applies its {{lines}}; expected the block after the LoadModule',
        detail: 'httpd decides <IfModule> where it stands, and the module is not loaded yet there, although it is loaded',
      },
    },
  },
  create(ctx) {
    return {
      end() {
        const apache = ctx.config;
        const modules = [...apache.modules.values()];
        for (const evaluation of apache.conditionals) {
          if (evaluation.section.name !== 'ifmodule') continue;
          const module = modules.find(
            (candidate) => candidate.identifier === evaluation.subject || candidate.sourceName === evaluation.subject,
          );
          const load = module?.use;
          if (module === undefined || load === undefined || load.order < evaluation.section.order) continue;
          ctx.report({
            at: evaluation.section,
            messageId: evaluation.negated ? 'appliedAnyway' : 'skipped',
            data: {
              subject: evaluation.subject,
              module: module.identifier,
              load: `${load.file.displayPath}:${load.file.position(load.range[0]).line}`,
              lines: directiveCount(evaluation.section.node.children),
            },
          });
        }
      },
    };
  },
});
