import { versionAtLeast } from '../../core/targets.js';
import type { TextEdit } from '../../core/types.js';
import { inCaseOf, insertApacheLineAfter, insertApacheLineInto, replaceApacheArg } from './edits.js';
import type { ApacheConfig, ApacheDirectiveUse } from './model.js';
import type { MpmDirective, MpmSettings } from './mpm.js';
import { MPM_MODULES } from './names.js';

export interface PlannedEdit {
  readonly edit: TextEdit;
  /** Where the change goes, for the message: `mods-enabled/mpm_prefork.conf:12`. */
  readonly where: string;
}

const OLD_NAMES: Partial<Record<MpmDirective, string>> = { MaxRequestWorkers: 'MaxClients', MaxConnectionsPerChild: 'MaxRequestsPerChild' };

/**
 * Sets an MPM directive to a value in the file where the user keeps it: the
 * line in effect when there is one (its value replaced, quoting and spacing
 * kept); otherwise a new line after the other MPM lines, inside the active
 * MPM's `<IfModule>` block, or after its LoadModule. Null when the line in
 * effect cannot be edited safely (it uses `${VAR}`).
 */
export function planMpmSetting(config: ApacheConfig, mpm: MpmSettings, directive: MpmDirective, value: number): PlannedEdit | null {
  const existing = mpm.values[directive].use;
  if (existing !== undefined) {
    const edit = replaceApacheArg(existing, 0, String(value));
    return edit === null ? null : { edit, where: whereOf(existing) };
  }
  const name = versionAtLeast(config.httpd, '2.4') ? directive : (OLD_NAMES[directive] ?? directive);
  const neighbours = Object.values(mpm.values)
    .map((entry) => entry.use)
    .filter((use): use is ApacheDirectiveUse => use !== undefined)
    .sort((a, b) => a.order - b.order);
  const last = neighbours[neighbours.length - 1];
  if (last !== undefined) {
    const edit = insertApacheLineAfter(last, alignedLike(last, inCaseOf(last.node.name, name), String(value)));
    return { edit, where: whereOf(last, 1) };
  }
  // A block that guards tuning for this MPM, not one that merely loads a module under it (RHEL's 01-cgi.conf).
  const block = config.conditionals.find(
    (evaluation) =>
      evaluation.result &&
      evaluation.section.name === 'ifmodule' &&
      config.container(evaluation.section) === undefined &&
      !evaluation.negated &&
      (MPM_MODULES[evaluation.subject] === mpm.name || evaluation.subject === `${mpm.name}.c`) &&
      !evaluation.section.node.children.some((child) => child.kind === 'directive' && child.nameLower === 'loadmodule'),
  );
  if (block !== undefined) {
    const edit = insertApacheLineInto(block.section, `${name} ${value}`);
    if (edit !== null)
      return {
        edit,
        where: `${block.section.file.displayPath}:${block.section.file.position(block.section.node.close?.range[0] ?? 0).line}`,
      };
  }
  const load = mpm.module?.use;
  // A LoadModule inside a container (an unclosed <VirtualHost> above it) is no place for a server-wide line: it would not take effect.
  if (load === undefined || config.container(load) !== undefined) return null;
  return { edit: insertApacheLineAfter(load, `${name} ${value}`), where: whereOf(load, 1) };
}

function whereOf(use: ApacheDirectiveUse, after = 0): string {
  return `${use.file.displayPath}:${use.file.position(use.node.line.end - 1).line + after}`;
}

/** `Name<spaces>value` with the value in the same column as the neighbour's, when the neighbour aligns. */
function alignedLike(neighbour: ApacheDirectiveUse, name: string, value: string): string {
  const first = neighbour.node.args[0];
  if (first === undefined) return `${name} ${value}`;
  const column = first.range[0] - neighbour.node.nameRange[0];
  const gap = neighbour.file.text.slice(neighbour.node.nameRange[1], first.range[0]);
  if (gap.includes('\t') || gap.length <= 1) return `${name}${gap || ' '}${value}`;
  return `${name}${' '.repeat(Math.max(1, column - name.length))}${value}`;
}
