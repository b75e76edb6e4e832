import { defineRule } from '../../src/engine/define-rule.js';
import { renameMycnfOption } from '../../src/languages/mycnf/edits.js';
import { inStyleOf, intendedOptions, shownLine, writtenKey } from './support/intent.js';
import { isClientOnlyOption } from './support/ownership.js';
import { removedOption } from '../../src/languages/mycnf/removed-options.js';
import { printedArgument } from '../../src/languages/mycnf/parser.js';

export default defineRule('mycnf', {
  meta: {
    id: 'MY4003',
    name: 'abbreviated-option',
    category: 'deprecation',
    description: 'An option written as the beginning of its name, which MySQL 5.7 and later refuse',
    defaultSeverity: 'warn',
    recommended: true,
    fix: 'safe',
    messages: {
      refused: {
        message: '{{written}}: "{{name}}" is short for {{full}}, which MySQL {{version}} refuses; expected {{full}}',
        detail: 'MySQL matches option names exactly since 5.7: "unknown variable \'{{argument}}\'"{{setVariable}}',
      },
      loose: {
        message: '{{written}}: "{{name}}" is short for {{full}}, which MySQL {{version}} skips, so {{full}} is not set; expected {{full}}',
        detail: 'MySQL matches option names exactly since 5.7, and with loose- it skips the line with a warning{{setVariable}}',
      },
      deprecated: {
        message: '{{written}}: "{{name}}" is short for {{full}}; expected {{full}}',
        detail:
          'MySQL {{version}} still expands it with a warning ("Using unique option prefix {{name}} instead of {{full}} is deprecated and will be removed in a future release"), 5.7 refuses it{{setVariable}}',
      },
      note: {
        message: '{{written}}: "{{name}}" is short for {{full}}; expected {{full}}',
        detail:
          "MariaDB expands it with a note (\"Using unique option prefix '{{name}}' is error-prone and can break in the future. Please use the full name '{{full}}' instead.\"); MySQL 5.7 and later refuse it{{setVariable}}",
      },
    },
  },
  create(ctx) {
    const mycnf = ctx.config;
    const target = mycnf.target;
    return {
      end() {
        for (const option of intendedOptions(mycnf)) {
          if (option.status !== 'abbreviation' && option.status !== 'abbreviation-refused') continue;
          const written = writtenKey(option.name);
          // `host` in [mysqld] abbreviates host_cache_size, but it is a client option (MY1007); a removed name is MY4002's.
          if (isClientOnlyOption(written) || removedOption(written) !== undefined) continue;
          const full = option.candidates[0];
          if (full === undefined) continue;
          const use = option.use;
          const messageId =
            target.product === 'mariadb'
              ? 'note'
              : option.status === 'abbreviation-refused'
                ? option.name.loose
                  ? 'loose'
                  : 'refused'
                : 'deprecated';
          const severity = messageId === 'refused' ? 'error' : messageId === 'note' ? 'info' : 'warn';
          const name = option.name.abbreviation ?? option.name.key;
          const argument = option.viaSetVariable
            ? `${option.name.raw}=${option.value ?? ''}`
            : printedArgument(use.line, use.file.encoding);
          ctx.report({
            at: use,
            messageId,
            severity,
            data: {
              written: shownLine(use),
              name: option.viaSetVariable
                ? name
                : use.file.slice(use.line.nameRange).replace(/^(?:(?:skip|disable|enable|maximum|loose)[-_])+/i, '') || name,
              full: option.viaSetVariable ? inStyleOf(option.name.raw, full) : inStyleOf(use.file.slice(use.line.nameRange), full),
              version: target.version,
              argument,
              setVariable: option.viaSetVariable ? ` (the option inside set-variable, which MY4001 rewrites first)` : '',
            },
            fix: () => (option.viaSetVariable ? null : renameMycnfOption(use, full)),
          });
        }
      },
    };
  },
});
