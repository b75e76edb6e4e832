import { defineRule } from '../../src/engine/define-rule.js';
import type { LanguageRuleContext, Range, RuleOptions, TextEdit } from '../../src/engine/types.js';
import type { MycnfOptionUse } from '../../src/languages/mycnf/model.js';
import { booleanValue } from '../../src/languages/mycnf/names.js';
import { parseServerSize } from '../../src/languages/mycnf/sizes.js';
import { shownLine } from './support/intent.js';
import { optionType, variableNameInMessages } from '../../src/languages/mycnf/option-types.js';

/** Options whose values are lists or SQL in which `;` is a separator, never a comment. */
const SEMICOLON_VALUES: ReadonlySet<string> = new Set([
  'init_connect',
  'init_slave',
  'plugin_load',
  'plugin_load_add',
  'wsrep_provider_options',
  'ssl_cipher',
  'tls_version',
]);

export default defineRule('mycnf', {
  meta: {
    id: 'MY1003',
    name: 'inline-semicolon',
    category: 'correctness',
    description:
      'A semicolon after a value starts a comment only at the beginning of a line, so the text after it becomes part of the value',
    defaultSeverity: 'error',
    recommended: true,
    fix: 'safe',
    messages: {
      numeric: {
        message: '"{{written}}": the server receives "{{value}}" and refuses to start; expected "#" before the comment',
        detail: '";" starts a comment only at the beginning of a line: {{wording}}',
      },
      numericIgnored: {
        message: '"{{written}}": the server reads {{read}} by chance; expected "#" before the comment',
        detail:
          '";" starts a comment only at the beginning of a line; the value holds the comment, and the server ignores everything after the suffix letter',
      },
      boolean: {
        message: '"{{written}}": the server receives "{{value}}", which is not a boolean; expected "#" before the comment',
        detail: '";" starts a comment only at the beginning of a line',
      },
      name: {
        message: '"{{written}}": the server receives the option "{{name}}" and refuses to start; expected "#" before the comment',
        detail: '";" starts a comment only at the beginning of a line: unknown option \'--{{name}}\'',
      },
      string: {
        message: '"{{written}}": the value is "{{value}}", comment included; expected "#" before the comment',
        detail: '";" starts a comment only at the beginning of a line',
      },
    },
  },
  create(ctx) {
    const check = (use: MycnfOptionUse): void => {
      if (!use.line.hasEquals) {
        checkName(ctx, use);
        return;
      }
      const value = use.value;
      if (value === undefined || use.line.quote !== undefined || use.line.valueRange === undefined) return;
      const semicolon = value.indexOf(';');
      if (semicolon === -1) return;
      const type = optionType(use.name.key);
      if (type === 'integer' || type === 'decimal') checkNumeric(ctx, use, value, type);
      else if (type === 'boolean') checkBoolean(ctx, use, value);
      // In a string a `;` may be data (a password, a list): only one written like a comment, after a blank, is reported.
      else if (!SEMICOLON_VALUES.has(use.name.key) && (semicolon === 0 || /[\t ]/.test(value[semicolon - 1] ?? '')))
        ctx.report({ at: use, messageId: 'string', data: { written: shownLine(use), value } });
    };
    return { option: { '*': check } };
  },
});

type Context = LanguageRuleContext<'mycnf', RuleOptions, 'name' | 'numeric' | 'numericIgnored' | 'boolean' | 'string'>;

/** `key_buffer_size;` : the name itself holds the `;`. */
function checkName(ctx: Context, use: MycnfOptionUse): void {
  const line = use.line;
  const raw = use.file.slice(line.contentRange);
  const semicolon = raw.indexOf(';');
  if (semicolon === -1) return;
  const before = raw.slice(0, semicolon).trimEnd();
  const fix = /^[A-Za-z][\w-]*$/.test(before) ? replaceSemicolon(use, line.nameRange[0] + semicolon) : undefined;
  ctx.report({ at: use, messageId: 'name', data: { written: shownLine(use), name: line.rawName }, ...(fix === undefined ? {} : { fix }) });
}

/** Where the `;` is in the value as written, and whether it can become `#` there (no escapes in the way). */
function semicolonAt(use: MycnfOptionUse): { readonly fixable: boolean; readonly at: number } {
  const valueRange = use.line.valueRange as Range;
  const raw = use.file.slice(valueRange);
  const rawSemicolon = raw.indexOf(';');
  return { fixable: !raw.includes('\\') && rawSemicolon !== -1, at: valueRange[0] + rawSemicolon };
}

function checkNumeric(ctx: Context, use: MycnfOptionUse, value: string, type: 'integer' | 'decimal'): void {
  const before = value.slice(0, value.indexOf(';')).trimEnd();
  const { fixable, at } = semicolonAt(use);
  const intact = type === 'decimal' ? /^\d+(\.\d+)?$/.test(before) : !('error' in parseServerSize(before, ctx.targets.db, use.name.key));
  const fix = fixable && intact ? { fix: replaceSemicolon(use, at) } : {};
  const written = shownLine(use);
  const parsed =
    type === 'integer'
      ? parseServerSize(value, ctx.targets.db, variableNameInMessages(use.name.key, ctx.targets.db))
      : { error: `Invalid decimal value for option '${use.name.key}'` };
  if ('error' in parsed) ctx.report({ at: use, messageId: 'numeric', data: { written, value, wording: parsed.error }, ...fix });
  else ctx.report({ at: use, messageId: 'numericIgnored', severity: 'warn', data: { written, read: before }, ...fix });
}

function checkBoolean(ctx: Context, use: MycnfOptionUse, value: string): void {
  if (use.name.implied !== undefined) return;
  const before = value.slice(0, value.indexOf(';')).trimEnd();
  const { fixable, at } = semicolonAt(use);
  const intact = booleanValue(use.name, before) !== undefined;
  ctx.report({
    at: use,
    messageId: 'boolean',
    data: { written: shownLine(use), value },
    ...(fixable && intact ? { fix: replaceSemicolon(use, at) } : {}),
  });
}

/** The `;` becomes `#`, with a blank before it when there is none, so the comment reads as one. */
function replaceSemicolon(use: MycnfOptionUse, at: number): () => TextEdit {
  const blankBefore = /[\t ]/.test(use.file.text[at - 1] ?? '');
  return () => ({ file: use.file, range: [at, at + 1], text: blankBefore ? '#' : ' #' });
}
