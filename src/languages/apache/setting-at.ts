import type { SettingAtPoint } from '../../core/language.js';
import type { SourceFile } from '../../core/source-file.js';
import type { ApacheConfig } from './model.js';
import { MPM_ALIASES, mpmDefaults } from './mpm.js';
import { CORE_SETTINGS, effectiveSetting } from './settings.js';
import { sectionLabel, type ApacheDirectiveUse } from './uses.js';

/**
 * The directive at an offset and its value where it stands: an MPM limit as
 * the active MPM runs it (after httpd's clamps), a core setting in its
 * `<VirtualHost>` or `<Directory>` (the last line there, else the server's),
 * any other directive as the last line of its name in the same container.
 * A line httpd skips (inside a false `<IfModule>`) says which section is false.
 */
export function apacheSettingAt(config: ApacheConfig, file: SourceFile, offset: number): SettingAtPoint | undefined {
  const use = config.uses.find((candidate) => candidate.file.path === file.path && within(candidate, offset));
  if (use === undefined) return skipped(config, file, offset);
  const written = use.node.name;
  const mpmDirective = MPM_ALIASES[use.name];
  const mpm = config.mpm;
  if (mpmDirective !== undefined && mpm?.name !== undefined) {
    const value = mpm.values[mpmDirective];
    const adjustment = mpm.adjustments.find((candidate) => candidate.directive === mpmDirective);
    return {
      name: written,
      ...(written.toLowerCase() === mpmDirective.toLowerCase() ? {} : { canonicalName: mpmDirective }),
      at: use,
      effective: { value: String(value.value), setAt: value.use },
      defaultValue: String(mpmDefaults(mpm.name, config.httpd)[mpmDirective]),
      note: [
        `the ${mpm.name} MPM is active`,
        ...(adjustment === undefined ? [] : [`httpd runs it as ${adjustment.to}, not ${adjustment.from}: ${adjustment.message}`]),
      ].join('; '),
    };
  }
  const setting = effectiveSetting(config, use.name, config.container(use));
  const spec = CORE_SETTINGS[use.name];
  return {
    name: written,
    at: use,
    effective: { value: setting.args.join(' '), setAt: setting.use },
    defaultValue: spec?.default(config.httpd),
  };
}

/** A directive line httpd never reads: inside a conditional section that is false, named as the reason. */
function skipped(config: ApacheConfig, file: SourceFile, offset: number): SettingAtPoint | undefined {
  const holding = config.conditionals
    .filter(
      ({ result, section }) =>
        !result && section.file.path === file.path && section.node.range[0] <= offset && offset <= section.node.range[1],
    )
    .sort((a, b) => a.section.node.range[0] - b.section.node.range[0])[0];
  if (holding === undefined) return undefined;
  const lineStart = file.text.lastIndexOf('\n', offset - 1) + 1;
  const lineEnd = file.text.indexOf('\n', offset);
  const line = file.text.slice(lineStart, lineEnd === -1 ? file.text.length : lineEnd);
  const directive = /^([ \t]*)([A-Za-z][\w-]*)/.exec(line);
  if (directive === null) return undefined;
  const start = lineStart + (directive[1] as string).length;
  return {
    name: directive[2] as string,
    at: { file, range: [start, start + line.trimEnd().length - (directive[1] as string).length] },
    effective: undefined,
    defaultValue: undefined,
    note: `${sectionLabel(holding.section.node)} is false here, so httpd skips the line`,
  };
}

function within(use: ApacheDirectiveUse, offset: number): boolean {
  return use.range[0] <= offset && offset <= use.range[1];
}
