import { defineRule } from '../../src/engine/define-rule.js';
import { versionAtLeast } from '../../src/core/targets.js';
import type { TextEdit } from '../../src/engine/types.js';
import { directiveCount } from '../../src/languages/apache/blocks.js';
import type { ApacheNode, DirectiveNode } from '../../src/languages/apache/cst.js';
import { DIRECTIVES, directiveSpec } from '../../src/languages/apache/directives.js';
import { indentationOf } from '../../src/languages/apache/edits.js';
import type { ApacheConfig, ApacheDirectiveUse } from '../../src/languages/apache/model.js';
import { MPM_ALIASES } from '../../src/languages/apache/mpm.js';
import { MPM_MODULES, type MpmName } from '../../src/languages/apache/names.js';
import { lookupTable } from '../../src/util/lookup.js';

/** The directives only some MPMs define: the lines this rule looks at (lower case). */
const MPM_ONLY = DIRECTIVES.filter((spec) => spec.mpms !== undefined).map((spec) => spec.name.toLowerCase());

export default defineRule('apache', {
  meta: {
    id: 'AP1008',
    name: 'foreign-mpm-directive',
    category: 'correctness',
    description: 'A directive of another MPM is an unknown command under the loaded one, and a block guarded for another MPM is never read',
    defaultSeverity: 'error',
    recommended: true,
    fix: 'safe',
    messages: {
      unknownCommand: {
        message:
          '{{name}} is not known to the {{mpm}} MPM loaded here, so httpd refuses to start; expected it inside <IfModule {{guard}}>, or removed',
        detail:
          '{{name}} belongs to {{owners}}, and this configuration loads {{mpm}} ({{load}}): "Invalid command \'{{written}}\', perhaps misspelled or defined by a module not included in the server configuration"',
      },
      deadBlock: {
        message: '<IfModule {{subject}}> holds {{lines}} that httpd never reads under {{mpm}}',
        detail: 'the block is for the {{blockMpm}} MPM, and this configuration loads {{mpm}}',
      },
    },
  },
  create(ctx) {
    const apache = ctx.config;
    // On 2.2 the MPM is compiled in and cannot be known from the configuration.
    if (!versionAtLeast(ctx.targets.httpd, '2.4')) return {};
    const active = apache.mpm;
    const mpm = active?.name;
    if (active === undefined || mpm === undefined) return {};
    const load =
      active.module?.use === undefined
        ? 'compiled in'
        : `LoadModule at ${active.module.use.file.displayPath}:${active.module.use.file.position(active.module.use.range[0]).line}`;
    const foreign = new Map<DirectiveNode, { use: ApacheDirectiveUse; guard: string; owners: string }>();
    const check = (use: ApacheDirectiveUse): void => {
      const owners = directiveSpec(use.name)?.mpms;
      if (owners === undefined || owners.includes(mpm)) return;
      foreign.set(use.node, { use, guard: guardFor(owners), owners: describeOwners(owners) });
    };
    return {
      directive: Object.fromEntries(MPM_ONLY.map((name) => [name, check])),
      end() {
        for (const { use, guard, owners } of foreign.values()) {
          ctx.report({
            at: use,
            messageId: 'unknownCommand',
            data: { name: directiveSpec(use.name)?.name ?? use.node.name, written: use.node.name, owners, mpm, load, guard },
            // Inside a block guarded for the loaded MPM the line can never apply: a guard of its own would be dead code.
            // A negated guard read before the MPM's LoadModule is true there (nothing loaded yet) and would let the line through.
            ...(insideGuardFor(use, mpm) || (guard.startsWith('!') && loadedAfter(active.module?.use, use))
              ? {}
              : { fix: () => wrapRun(apache, use, guard, (node) => foreign.get(node)?.guard) }),
          });
        }
        for (const evaluation of apache.conditionals) {
          const blockMpm = mpmOf(evaluation.subject);
          if (evaluation.section.name !== 'ifmodule' || evaluation.negated || blockMpm === undefined || blockMpm === mpm) continue;
          if (!holdsMpmDirective(evaluation.section.node.children)) continue;
          ctx.report({
            at: evaluation.section,
            messageId: 'deadBlock',
            severity: 'info',
            data: { subject: evaluation.subject, lines: directiveCount(evaluation.section.node.children), blockMpm, mpm },
          });
        }
      },
    };
  },
});

/** The guard under which a directive of these MPMs is read only when one of them is loaded. */
function guardFor(owners: readonly MpmName[]): string {
  if (owners.length === 1) return `mpm_${owners[0] as MpmName}_module`;
  // worker and event share their thread directives; of the three, only prefork lacks them.
  return '!mpm_prefork_module';
}

function describeOwners(owners: readonly MpmName[]): string {
  return owners.length === 1 ? `the ${owners[0] as MpmName} MPM` : `the ${owners.join(' and ')} MPMs`;
}

const MPM_BY_SOURCE: Readonly<Record<string, MpmName>> = lookupTable({ 'prefork.c': 'prefork', 'worker.c': 'worker', 'event.c': 'event' });

function mpmOf(subject: string): MpmName | undefined {
  return MPM_MODULES[subject] ?? MPM_BY_SOURCE[subject];
}

function insideGuardFor(use: ApacheDirectiveUse, mpm: MpmName): boolean {
  for (let parent = use.parent; parent !== undefined; parent = parent.parent) {
    if (parent.name !== 'ifmodule') continue;
    const subject = parent.args[0] ?? '';
    if (mpmOf(subject) === mpm) return true;
  }
  return false;
}

function loadedAfter(load: ApacheDirectiveUse | undefined, use: ApacheDirectiveUse): boolean {
  return load !== undefined && load.order > use.order;
}

function holdsMpmDirective(nodes: readonly ApacheNode[]): boolean {
  return nodes.some((node) =>
    node.kind === 'directive'
      ? MPM_ALIASES[node.nameLower] !== undefined || directiveSpec(node.nameLower)?.mpms !== undefined
      : node.kind === 'section' && holdsMpmDirective(node.children),
  );
}

/**
 * Wraps the run of consecutive sibling lines around `use` that need the same
 * guard in one `<IfModule guard>` block, indented like its first line.
 */
function wrapRun(
  apache: ApacheConfig,
  use: ApacheDirectiveUse,
  guard: string,
  guardOf: (node: DirectiveNode) => string | undefined,
): TextEdit[] | null {
  const document = apache.files.find((entry) => entry.source === use.file)?.document;
  const siblings = document === undefined ? undefined : containingList(document.nodes, use.node);
  if (siblings === undefined) return null;
  const sameGuard = (node: ApacheNode | undefined): node is DirectiveNode => node?.kind === 'directive' && guardOf(node) === guard;
  let first = siblings.indexOf(use.node);
  let last = first;
  while (sameGuard(siblings[first - 1])) first--;
  while (sameGuard(siblings[last + 1])) last++;
  const head = siblings[first] as DirectiveNode;
  const tail = siblings[last] as DirectiveNode;
  const indent = indentationOf(use.file, head.line);
  const eol = head.line.eol === '' ? use.file.eol : head.line.eol;
  const close = tail.line.eol === '' ? `${eol}${indent}</IfModule>` : `${indent}</IfModule>${eol}`;
  return [
    { file: use.file, range: [head.line.start, head.line.start], text: `${indent}<IfModule ${guard}>${eol}` },
    { file: use.file, range: [tail.line.end, tail.line.end], text: close },
  ];
}

function containingList(nodes: readonly ApacheNode[], target: ApacheNode): readonly ApacheNode[] | undefined {
  if (nodes.includes(target)) return nodes;
  for (const node of nodes) {
    if (node.kind !== 'section') continue;
    const found = containingList(node.children, target);
    if (found !== undefined) return found;
  }
  return undefined;
}
