import type { SettingAtPoint } from '../../core/language.js';
import type { SourceFile } from '../../core/source-file.js';
import type { ApacheConfig } from './model.js';
import { MPM_ALIASES, mpmDefaults } from './mpm.js';
import { CORE_SETTINGS, effectiveSetting } from './settings.js';
import type { ApacheDirectiveUse } from './uses.js';

/**
 * The directive at an offset and its value where it stands: an MPM limit as
 * the active MPM runs it (after httpd's clamps), a core setting in its
 * `<VirtualHost>` or `<Directory>` (the last line there, else the server's),
 * any other directive as the last line of its name in the same container.
 * Lines httpd skips (a false `<IfModule>`) are not in the config and give none.
 */
export function apacheSettingAt(config: ApacheConfig, file: SourceFile, offset: number): SettingAtPoint | undefined {
  const use = config.uses.find((candidate) => candidate.file.path === file.path && within(candidate, offset));
  if (use === undefined) return undefined;
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

function within(use: ApacheDirectiveUse, offset: number): boolean {
  return use.range[0] <= offset && offset <= use.range[1];
}
