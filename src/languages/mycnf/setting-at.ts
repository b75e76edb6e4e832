import type { SettingAtPoint } from '../../core/language.js';
import type { SourceFile } from '../../core/source-file.js';
import type { MycnfConfig, MycnfOptionUse } from './model.js';

/**
 * The option at an offset and the value the server starts with: the last
 * line of its name in the groups it reads (maximum- lines aside), else the
 * target's default. A line in a group the server does not read says so.
 */
export function mycnfSettingAt(config: MycnfConfig, file: SourceFile, offset: number): SettingAtPoint | undefined {
  const read = config.uses.find((use) => at(use, file, offset));
  if (read === undefined) {
    const other = config.otherOptions.find((use) => at(use, file, offset));
    if (other === undefined) return undefined;
    return {
      name: `[${other.group}] ${other.name.raw}`,
      at: other,
      effective: undefined,
      defaultValue: undefined,
      note: `the server does not read [${other.group}]: it reads ${config.serverGroups.map((group) => `[${group}]`).join(', ')}`,
    };
  }
  const key = read.name.key;
  const effective = config.effective(key);
  const defaultValue = config.defaultOf(key);
  return {
    name: `[${read.group}] ${read.name.raw}`,
    at: read,
    effective: effective === undefined ? undefined : { value: effective.value ?? '(on)', setAt: effective },
    defaultValue: defaultValue === undefined ? undefined : String(defaultValue),
    ...(read.name.maximum ? { note: 'a maximum- line: it caps what a client may set, not the value the server starts with' } : {}),
  };
}

function at(use: MycnfOptionUse, file: SourceFile, offset: number): boolean {
  return use.file.path === file.path && use.range[0] <= offset && offset <= use.range[1];
}
