import { pathToFileURL } from 'node:url';
import type { Hover } from 'vscode-languageserver';
import { plannedChanges } from '../analysis/plan.js';
import type { LanguageConfig, LanguageDefinition, SettingAtPoint } from '../core/language.js';
import type { SourceFile } from '../core/source-file.js';
import type { Located } from '../core/types.js';
import type { RuleMeta } from '../engine/types.js';
import type { LintResult } from '../lint.js';
import { builtinLanguages } from '../languages/index.js';
import { lspRange } from './convert.js';

/**
 * What the editor shows over a setting: the value the server runs with where
 * the line stands and the line that sets it, the server's default, what the
 * host plan makes of it, and the rules that judge it (those with a finding
 * on the line, and those whose description names it), each linked to its page.
 */
export function hoverAt(
  result: LintResult,
  realPath: string,
  offset: number,
  rules: readonly RuleMeta[],
  rulePage: (ruleId: string) => string,
): Hover | undefined {
  const found = configOf(result, realPath);
  if (found === undefined) return undefined;
  const definition = builtinLanguages.find((language) => language.id === found.language) as LanguageDefinition | undefined;
  // Each definition gets the configs of its own id.
  const setting = definition?.settingAt?.(found.config as never, found.file, pastIndentation(found.file.text, offset));
  if (setting === undefined) return undefined;
  const title = setting.canonicalName === undefined ? `**${setting.name}**` : `**${setting.name}** (${setting.canonicalName})`;
  const lines = [title, '', ...valueLines(setting), ...planLines(result, found.config, setting)];
  const judging = judgingRules(result, setting, rules);
  if (judging.length > 0) {
    lines.push('', `Judged by: ${judging.map((rule) => `[${rule.id}](${rulePage(rule.id)}) ${rule.name}`).join(', ')}`);
  }
  return { contents: { kind: 'markdown', value: lines.join('\n') }, range: lspRange(setting.at.file, setting.at.range) };
}

/** The line's first character for an offset in its indentation: a hover there is a hover over the line's setting. */
function pastIndentation(text: string, offset: number): number {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  const indentation = /^[ \t]*/.exec(text.slice(lineStart, lineStart + 256))?.[0].length ?? 0;
  return offset < lineStart + indentation ? lineStart + indentation : offset;
}

function configOf(
  result: LintResult,
  realPath: string,
): { readonly language: string; readonly config: LanguageConfig; readonly file: SourceFile } | undefined {
  for (const { language, config } of result.configs.entries()) {
    const entry = config.files.find((candidate) => candidate.source.realPath === realPath);
    if (entry !== undefined) return { language, config, file: entry.source };
  }
  return undefined;
}

function valueLines(setting: SettingAtPoint): string[] {
  const lines: string[] = [];
  const { effective } = setting;
  if (effective === undefined) lines.push('Not in effect.');
  else if (effective.setAt === undefined) lines.push(`In effect: \`${effective.value}\` (the default)`);
  else lines.push(`In effect: \`${effective.value}\`, set at ${where(effective.setAt)}`);
  if (setting.defaultValue !== undefined) lines.push('', `Default: \`${setting.defaultValue}\``);
  if (setting.note !== undefined) lines.push('', `${setting.note.charAt(0).toUpperCase()}${setting.note.slice(1)}.`);
  return lines;
}

/** `[etc/apache2/apache2.conf:98](file:///…#L98)`: a link the editor opens at the line. */
function where(at: Located): string {
  const line = at.file.position(at.range[0]).line;
  return `[${at.file.displayPath}:${line}](${pathToFileURL(at.file.realPath).href}#L${line})`;
}

/** The host plan's figure for the knob, when the plan moves it: `MaxRequestWorkers 150 → 15` and why. */
function planLines(result: LintResult, config: LanguageConfig, setting: SettingAtPoint): string[] {
  const names = new Set([setting.name, bareName(setting), setting.canonicalName].flatMap((name) => name?.toLowerCase() ?? []));
  const change = plannedChanges(result.sizing.plan).find(
    (candidate) => candidate.file === config.root.displayPath && names.has(candidate.setting.toLowerCase()),
  );
  return change === undefined ? [] : ['', `Host plan: ${change.current} → ${change.planned}: ${change.why}`];
}

/** The name without its group or pool: `max_connections` of `[mysqld] max-connections`. */
function bareName(setting: SettingAtPoint): string {
  const name = setting.name.replace(/^\[[^\]]*\]\s*/, '');
  return /^[a-z0-9_-]+$/i.test(name) ? name.replaceAll('-', '_') : name;
}

function judgingRules(result: LintResult, setting: SettingAtPoint, rules: readonly RuleMeta[]): RuleMeta[] {
  const line = setting.at.file.position(setting.at.range[0]).line;
  const onLine = new Set(
    result.diagnostics
      .filter((diagnostic) => diagnostic.file.realPath === setting.at.file.realPath && diagnostic.start.line === line)
      .map((diagnostic) => diagnostic.ruleId),
  );
  const names = [bareName(setting), ...(setting.canonicalName === undefined ? [] : [setting.canonicalName])].map(escaped).join('|');
  const named = new RegExp(`(^|[^\\w.-])(${names})($|[^\\w.-])`, 'i');
  return rules.filter((rule) => onLine.has(rule.id) || named.test(rule.description));
}

function escaped(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
