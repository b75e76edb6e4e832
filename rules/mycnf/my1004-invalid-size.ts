import { defineRule } from '../../src/engine/define-rule.js';
import type { DatabaseTarget } from '../../src/core/targets.js';
import { replaceMycnfValue } from '../../src/languages/mycnf/edits.js';
import type { MycnfOptionUse } from '../../src/languages/mycnf/model.js';
import type { LanguageRuleContext, RuleOptions } from '../../src/engine/types.js';
import {
  describeSizeWarning,
  formatServerSize,
  legalSuffixes,
  parseServerSize,
  suffixShift,
  type SizeWarning,
} from '../../src/languages/mycnf/sizes.js';
import { isSignedInteger, optionPlugin, optionType, variableNameInMessages } from '../../src/languages/mycnf/option-types.js';

/** A target that takes every suffix letter, to read a refused value's letter whatever the target. */
const MARIADB_WITH_EVERY_SUFFIX: DatabaseTarget = { product: 'mariadb', version: '10.11' };
/** strtoull skips these blanks before the sign. */
const NEGATIVE = /^[\t\n\v\f\r ]*-/;

export default defineRule('mycnf', {
  meta: {
    id: 'MY1004',
    name: 'invalid-size',
    category: 'correctness',
    description: 'A numeric option is written in a form the server refuses or reads differently from how it looks',
    defaultSeverity: 'error',
    recommended: true,
    fix: 'safe',
    messages: {
      refused: {
        message: '{{name}} = {{value}} is refused, so the server does not start{{expected}}',
        detail: 'the server takes an integer with at most one suffix letter ({{suffixes}}): "{{wording}}"',
      },
      refusedPlugin: {
        message: '{{name}} = {{value}} is refused, which disables the {{plugin}} plugin{{expected}}',
        detail:
          'the server takes an integer with at most one suffix letter ({{suffixes}}): "{{wording}}", then "Parsing options for plugin \'{{plugin}}\' failed. Disabling plugin"',
      },
      negative: {
        message: '{{name}} = {{value}} is refused: the option takes no negative value; expected 0 or more',
        detail: '"{{wording}}"{{pluginEffect}}',
      },
      trailing: {
        message: '{{name}} = {{value}} is read as {{read}}; expected {{read}}',
        detail: 'the server ignores "{{ignored}}" after the suffix letter',
      },
      exponent: {
        message: '{{name}} = {{value}} is read as {{read}}, exabytes; expected the number written out',
        detail: 'E is the exabyte suffix (2^60 bytes), and the server ignores "{{ignored}}"',
      },
      misread: { message: '{{name}} = "{{value}}" does not read as it looks; expected {{expected}}', detail: '{{warning}}' },
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
      const name = use.file.slice(use.line.nameRange);
      if ('error' in parsed) reportRefused(ctx, use, name, value, parsed.error);
      else if (parsed.warnings.length > 0) reportMisread(ctx, use, name, value, parsed.warnings);
    };
    return { option: { '*': check } };
  },
});

type Context = LanguageRuleContext<'mycnf', RuleOptions, 'refused' | 'refusedPlugin' | 'negative' | 'trailing' | 'exponent' | 'misread'>;

function reportRefused(ctx: Context, use: MycnfOptionUse, name: string, value: string, wording: string): void {
  const target = ctx.targets.db;
  const plugin = optionPlugin(use.name.key, target);
  if (NEGATIVE.test(value)) {
    const pluginEffect = plugin === undefined ? '' : ` and disables the ${plugin} plugin`;
    ctx.report({ at: use, messageId: 'negative', data: { name, value, wording, pluginEffect } });
    return;
  }
  const intended = intendedSize(value, target);
  ctx.report({
    at: use,
    messageId: plugin === undefined ? 'refused' : 'refusedPlugin',
    data: {
      name,
      value,
      suffixes: legalSuffixes(target),
      wording,
      expected: intended === undefined ? '' : `; expected ${intended}`,
      plugin: plugin ?? '',
    },
    ...(intended === undefined ? {} : { fix: () => replaceMycnfValue(use, intended) }),
  });
}

function reportMisread(ctx: Context, use: MycnfOptionUse, name: string, value: string, warnings: readonly SizeWarning[]): void {
  const trailing = warnings.find((warning) => warning.kind === 'trailing');
  if (trailing !== undefined) {
    const data = { name, value, read: trailing.read, ignored: trailing.ignored };
    if (/e$/i.test(trailing.read) && /^\d+$/.test(trailing.ignored)) ctx.report({ at: use, messageId: 'exponent', severity: 'warn', data });
    else ctx.report({ at: use, messageId: 'trailing', severity: 'warn', data, fix: () => replaceMycnfValue(use, trailing.read) });
    return;
  }
  const kinds = new Set(warnings.map((warning) => warning.kind));
  const expected = kinds.has('wraps') ? 'a value below 16E' : kinds.has('negative') ? 'a value of 0 or more' : 'a number';
  const warning = warnings.map((each) => describeSizeWarning(each, value, variableNameInMessages(use.name.key, ctx.targets.db))).join('; ');
  ctx.report({ at: use, messageId: 'misread', severity: 'warn', data: { name, value, warning, expected } });
}

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
  // Every letter the pattern takes is a suffix of some target; the one this target lacks is written with one it has.
  const shift = suffix === undefined ? 0 : (suffixShift(suffix, MARIADB_WITH_EVERY_SUFFIX) as number);
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
  // No larger suffix than the one written: 2048.0M is 2048M, not 2G.
  const text = formatServerSize(bytes, target, { lowercase: suffix !== undefined && /^[a-z]$/.test(suffix), largestShift: shift });
  return text === value ? undefined : text;
}
