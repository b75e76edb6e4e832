import { defineRule } from '../../src/engine/define-rule.js';
import type { SourceFile } from '../../src/core/source-file.js';
import { versionAtLeast } from '../../src/core/targets.js';
import type { TextEdit } from '../../src/engine/types.js';
import type { DirectiveNode } from '../../src/languages/apache/cst.js';
import { indentationOf } from '../../src/languages/apache/edits.js';
import { atoi } from '../../src/languages/apache/mpm.js';

/** 2.2's compiled-in limits (server/mpm/prefork/prefork.c and worker/worker.c, 2.2.x). */
const LIMITS = {
  prefork: { serverLimit: 256, maxServerLimit: 200000, threadsPerChild: 1, threadLimit: 1, maxThreadLimit: 1 },
  worker: { serverLimit: 16, maxServerLimit: 20000, threadsPerChild: 25, threadLimit: 64, maxThreadLimit: 20000 },
} as const;

type Kind = keyof typeof LIMITS;

/** One directive line in the order httpd 2.2 reads it. */
interface Line {
  readonly file: SourceFile;
  readonly node: DirectiveNode;
  readonly name: string;
  readonly value: number;
}

interface Finding {
  readonly clamped: Line;
  readonly limit: Line;
  readonly limitName: string;
  readonly limitAt: number;
  readonly lowered: number;
}

export default defineRule('apache', {
  meta: {
    id: 'AP4005',
    name: 'limit-order-22',
    category: 'deprecation',
    description:
      'httpd 2.2 checks MaxClients and ThreadsPerChild against the ServerLimit and ThreadLimit read so far, so a limit set below them is ignored',
    defaultSeverity: 'warn',
    recommended: true,
    fix: 'tune',
    messages: {
      order: {
        message:
          'httpd 2.2 lowers {{name}} {{value}} to {{lowered}}: {{limitName}} {{limit}} comes later; expected {{limitName}} above {{name}}',
        detail:
          'httpd 2.2 checks {{name}} against the {{limitName}} read so far ({{limitAt}}); {{limitName}} {{limit}} follows at {{where}}{{block}}',
      },
    },
  },
  create(ctx) {
    return {
      end() {
        const apache = ctx.config;
        // 2.4 checks the limits after reading everything; the order no longer matters.
        if (versionAtLeast(apache.httpd, '2.4')) return;
        const sequences: { kind: Kind; lines: Line[]; block: string }[] = [];
        const active: Kind = apache.mpm?.name === 'worker' ? 'worker' : 'prefork';
        sequences.push({
          kind: active,
          block: '',
          lines: apache.uses
            .filter((use) => apache.container(use) === undefined)
            .map((use) => ({ file: use.file, node: use.node, name: use.name, value: atoi(use.args[0]) })),
        });
        // 2.2 picks its MPM with the binary (httpd or httpd.worker), so a worker block may be the one in use even when it reads as false here.
        for (const evaluation of apache.conditionals) {
          const subject = evaluation.subject;
          if (
            evaluation.section.name !== 'ifmodule' ||
            evaluation.negated ||
            evaluation.result ||
            (subject !== 'worker.c' && subject !== 'mpm_worker_module')
          )
            continue;
          const lines = evaluation.section.node.children.flatMap((node) =>
            node.kind === 'directive'
              ? [{ file: evaluation.section.file, node, name: node.nameLower, value: atoi(node.args[0]?.value) }]
              : [],
          );
          sequences.push({ kind: 'worker', lines, block: ` (in <IfModule ${subject}>, read when httpd.worker runs)` });
        }
        for (const { kind, lines, block } of sequences) {
          for (const finding of findings(kind, lines)) {
            const { clamped, limit } = finding;
            ctx.report({
              at: { file: clamped.file, range: clamped.node.line.content },
              messageId: 'order',
              data: {
                name: clamped.node.name,
                value: clamped.value,
                limitName: finding.limitName,
                limitAt: finding.limitAt,
                lowered: finding.lowered,
                limit: limit.value,
                where: `${limit.file.displayPath}:${limit.file.position(limit.node.line.content[0]).line}`,
                block,
              },
              fix: () => moveAbove(limit, clamped),
            });
          }
        }
      },
    };
  },
});

function findings(kind: Kind, lines: readonly Line[]): Finding[] {
  const limits = LIMITS[kind];
  const out: Finding[] = [];
  const lastOf = (name: string, before = Infinity): Line | undefined =>
    lines.filter((line, index) => line.name === name && index < before).at(-1);
  const indexOf = (line: Line): number => lines.indexOf(line);

  // ThreadsPerChild against the ThreadLimit read so far (worker only; 2.2 reads ThreadsPerChild before MaxClients).
  let threadsPerChild: number = limits.threadsPerChild;
  const tpc = kind === 'worker' ? lastOf('threadsperchild') : undefined;
  if (tpc !== undefined) {
    const earlier = lastOf('threadlimit', indexOf(tpc));
    const threadLimitAt = Math.min(earlier?.value ?? limits.threadLimit, limits.maxThreadLimit);
    threadsPerChild = Math.min(tpc.value, threadLimitAt);
    const final = lastOf('threadlimit');
    if (
      tpc.value > threadLimitAt &&
      final !== undefined &&
      indexOf(final) > indexOf(tpc) &&
      Math.min(final.value, limits.maxThreadLimit) > threadLimitAt
    ) {
      out.push({ clamped: tpc, limit: final, limitName: 'ThreadLimit', limitAt: threadLimitAt, lowered: threadLimitAt });
    }
  }

  const maxClients = lastOf('maxclients');
  if (maxClients !== undefined) {
    const earlier = lastOf('serverlimit', indexOf(maxClients));
    const serverLimitAt = Math.min(earlier?.value ?? limits.serverLimit, limits.maxServerLimit);
    const final = lastOf('serverlimit');
    const capacity = (servers: number): number => servers * threadsPerChild;
    if (
      maxClients.value > capacity(serverLimitAt) &&
      final !== undefined &&
      indexOf(final) > indexOf(maxClients) &&
      capacity(Math.min(final.value, limits.maxServerLimit)) > capacity(serverLimitAt)
    ) {
      out.push({ clamped: maxClients, limit: final, limitName: 'ServerLimit', limitAt: serverLimitAt, lowered: capacity(serverLimitAt) });
    }
  }
  return out;
}

/**
 * Moves the limit's line above the clamped directive, with that line's
 * indentation. It raises what the server runs with to what the
 * configuration says, so it is a tune fix: check memory first (AP2001).
 */
function moveAbove(limit: Line, clamped: Line): TextEdit[] | null {
  const line = limit.node.line;
  if (line.physicalLines > 1 || line.text.includes('${')) return null;
  const target = clamped.node.line;
  const eol = target.eol === '' ? clamped.file.eol : target.eol;
  return [
    { file: clamped.file, range: [target.start, target.start], text: `${indentationOf(clamped.file, target)}${line.text}${eol}` },
    { file: limit.file, range: [line.start, line.end], text: '' },
  ];
}
