import { defineMycnfRule } from '../../src/engine/define-rule.js';
import type { DatabaseTarget } from '../../src/core/targets.js';
import { replaceMycnfValue } from '../../src/languages/mycnf/edits.js';
import type { MycnfOptionUse } from '../../src/languages/mycnf/model.js';
import { acceptsLargeSuffixes, parseServerSize } from '../../src/languages/mycnf/sizes.js';
import { isSignedInteger, optionPlugin, optionType, variableNameInMessages } from '../../src/languages/mycnf/option-types.js';

const SHIFT: Readonly<Record<string, number>> = { k: 10, m: 20, g: 30, t: 40, p: 50, e: 60 };
/** strtoull skips these blanks before the sign. */
const NEGATIVE = /^[\t\n\v\f\r ]*-/;

export default defineMycnfRule({
  meta: {
    id: 'MY1004',
    name: 'invalid-size',
    category: 'correctness',
    description: 'A numeric option is written in a form the server refuses or reads differently from how it looks',
    defaultSeverity: 'error',
    recommended: true,
    fix: 'safe',
    messages: {
      refused:
        '{{name}} = {{value}}: the server takes an integer with at most one suffix letter ({{suffixes}}) and refuses this value: "{{wording}}"{{expected}}',
      refusedPlugin:
        '{{name}} = {{value}}: the server takes an integer with at most one suffix letter ({{suffixes}}); it refuses this value ("{{wording}}") and disables the {{plugin}} plugin ("Parsing options for plugin \'{{plugin}}\' failed. Disabling plugin"){{expected}}',
      negative:
        '{{name}} = {{value}}: the option takes no negative value, so the server refuses it: "{{wording}}"{{pluginEffect}}; expected 0 or more',
      trailing: '{{name}} = {{value}}: the server reads {{read}} and ignores "{{ignored}}" after the suffix letter; expected {{read}}',
      exponent:
        '{{name}} = {{value}}: the server reads {{read}}, E being the exabyte suffix (2^60 bytes), and ignores "{{ignored}}"; expected the number written out',
      misread: '{{name}} = "{{value}}": {{warning}}; expected {{expected}}',
    },
  },
  create(ctx) {
    const target = ctx.targets.db;
    const check = (use: MycnfOptionUse): void => {
      const value = use.value;
      const key = use.name.key;
      // A `;` in the value is MY1003's: the writer meant a comment.
      if (value === undefined || optionType(key) !== 'integer' || value.includes(';')) return;
      if (NEGATIVE.test(value) && isSignedInteger(key)) return;
      const parsed = parseServerSize(value, target, variableNameInMessages(key, target));
      const suffixes = acceptsLargeSuffixes(target) ? 'K, M, G, T, P, E' : 'K, M, G';
      const name = use.file.slice(use.line.nameRange);
      const plugin = optionPlugin(key, target);
      if ('error' in parsed && NEGATIVE.test(value)) {
        const pluginEffect = plugin === undefined ? '' : ` and disables the ${plugin} plugin`;
        ctx.report({ at: use, messageId: 'negative', data: { name, value, wording: parsed.error, pluginEffect } });
        return;
      }
      if ('error' in parsed) {
        const intended = intendedSize(value, target);
        const expected = intended === undefined ? '' : `; expected ${intended}`;
        ctx.report({
          at: use,
          messageId: plugin === undefined ? 'refused' : 'refusedPlugin',
          data: { name, value, suffixes, wording: parsed.error, expected, plugin: plugin ?? '' },
          ...(intended === undefined ? {} : { fix: () => replaceMycnfValue(use, intended) }),
        });
        return;
      }
      const warning = parsed.warning;
      if (warning === undefined) return;
      const trailing = /^(\s*\d+[kmgtpe])(.+)$/i.exec(value);
      if (trailing !== null && warning.includes('after the suffix is ignored')) {
        const read = (trailing[1] as string).trim();
        if (/e$/i.test(read) && /^\d+$/.test(trailing[2] as string)) {
          ctx.report({ at: use, messageId: 'exponent', severity: 'warn', data: { name, value, read, ignored: trailing[2] as string } });
          return;
        }
        ctx.report({
          at: use,
          messageId: 'trailing',
          severity: 'warn',
          data: { name, value, read, ignored: trailing[2] as string },
          fix: () => replaceMycnfValue(use, read),
        });
        return;
      }
      const expected = warning.includes('wraps') ? 'a value below 16E' : warning.includes('negative') ? 'a value of 0 or more' : 'a number';
      ctx.report({ at: use, messageId: 'misread', severity: 'warn', data: { name, value, warning, expected } });
    };
    return { option: { '*': check } };
  },
});

/**
 * What a refused size evidently means, written so the target takes it: `1.5G`
 * is 1536M, `5 M` is 5M, `0x10` is 16, `1T` on a target without T is 1024G,
 * `512 MB` is 512M. Undefined when the bytes are not a whole number or the
 * value is something else.
 */
function intendedSize(value: string, target: DatabaseTarget): string | undefined {
  const match = /^\s*(?:(0x[0-9a-f]+)|(\d+)(?:\.(\d+))?)\s*(?:([kmgtpe])(?:i?b)?)?\s*$/i.exec(value);
  if (match === null) return undefined;
  const suffix = match[4];
  const shift = suffix === undefined ? 0 : (SHIFT[suffix.toLowerCase()] as number);
  let bytes: bigint;
  if (match[1] !== undefined) {
    if (suffix !== undefined) return undefined;
    bytes = BigInt(match[1]);
  } else {
    const fraction = match[3] ?? '';
    const scaled = BigInt(`${match[2] as string}${fraction}`) << BigInt(shift);
    const divisor = 10n ** BigInt(fraction.length);
    if (scaled % divisor !== 0n) return undefined;
    bytes = scaled / divisor;
  }
  if (bytes >= 1n << 64n) return undefined;
  const allowed = acceptsLargeSuffixes(target) ? 60 : 30;
  const lower = suffix !== undefined && /^[a-z]$/.test(suffix);
  for (const [letter, unitShift] of Object.entries(SHIFT).reverse()) {
    if (unitShift > Math.min(shift, allowed) || bytes === 0n) continue;
    const unit = 1n << BigInt(unitShift);
    if (bytes % unit === 0n) return `${bytes / unit}${lower ? letter : letter.toUpperCase()}`;
  }
  const text = String(bytes);
  return text === value ? undefined : text;
}
