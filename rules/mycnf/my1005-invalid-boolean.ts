import { defineRule } from '../../src/engine/define-rule.js';
import { replaceMycnfValue } from '../../src/languages/mycnf/edits.js';
import type { MycnfOptionUse } from '../../src/languages/mycnf/model.js';
import { booleanValue } from '../../src/languages/mycnf/names.js';
import { invalidBooleanOutcome, optionType } from '../../src/languages/mycnf/option-types.js';
import { lookupTable } from '../../src/util/lookup.js';

/** Words whose meaning is plain; anything else (`2`, `maybe`) gets no fix. */
const MEANING: Readonly<Record<string, boolean>> = lookupTable({
  yes: true,
  y: true,
  enable: true,
  enabled: true,
  no: false,
  n: false,
  disable: false,
  disabled: false,
});

export default defineRule('mycnf', {
  meta: {
    id: 'MY1005',
    name: 'invalid-boolean',
    category: 'correctness',
    description: 'A boolean option has a value the server does not take as a boolean',
    defaultSeverity: 'error',
    recommended: true,
    fix: 'safe',
    messages: {
      ignored: {
        message: '{{name}} = {{value}} is ignored: not a boolean the server takes{{expected}}',
        detail:
          "the server takes only ON/OFF, TRUE/FALSE or 1/0 and keeps the default: \"ignoring option '--{{dashed}}' due to invalid value '{{value}}'\"",
      },
      off: {
        message: '{{name}} = {{value}} sets the option OFF: not a boolean the server takes{{expected}}',
        detail: "the server takes only ON/OFF, TRUE/FALSE or 1/0: \"boolean value '{{value}}' wasn't recognized. Set to OFF.\"",
      },
      mysql: {
        message: '{{name}} = {{value}} is not a boolean the server takes{{expected}}',
        detail:
          'the server takes only ON/OFF, TRUE/FALSE or 1/0; it sets the option OFF ("boolean value \'{{value}}\' was not recognized. Set to OFF.") or ignores the line',
      },
    },
  },
  create(ctx) {
    const target = ctx.targets.db;
    const check = (use: MycnfOptionUse): void => {
      const value = use.value;
      if (
        value === undefined ||
        use.name.implied !== undefined ||
        optionType(use.name.key) !== 'boolean' ||
        booleanValue(use.name, value) !== undefined
      )
        return;
      const meant = MEANING[value.toLowerCase()];
      const replacement = meant === undefined ? undefined : value === value.toLowerCase() ? (meant ? 'on' : 'off') : meant ? 'ON' : 'OFF';
      const outcome = target.product === 'mysql' ? 'mysql' : invalidBooleanOutcome(use.name.key);
      // OFF where OFF was meant works, by accident: a warning, not an error.
      const severity = outcome === 'off' && meant === false ? 'warn' : undefined;
      ctx.report({
        at: use,
        messageId: outcome,
        data: {
          name: use.file.slice(use.line.nameRange),
          value,
          dashed: use.name.key.replaceAll('_', '-'),
          expected: replacement === undefined ? '; expected ON or OFF' : `; expected ${replacement}`,
        },
        ...(severity === undefined ? {} : { severity }),
        ...(replacement === undefined ? {} : { fix: () => replaceMycnfValue(use, replacement) }),
      });
    };
    return { option: { '*': check } };
  },
});
