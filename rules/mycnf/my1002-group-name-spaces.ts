import { defineRule } from '../../src/engine/define-rule.js';
import { groupKey } from '../../src/languages/mycnf/groups.js';
import type { MycnfGroupLine } from '../../src/languages/mycnf/parser.js';

/** Blanks the reader keeps after `[`: it trims only the blanks before `]`. */
const LEADING_BLANKS = /^[\t ]+/;

export default defineRule('mycnf', {
  meta: {
    id: 'MY1002',
    name: 'group-name-spaces',
    category: 'correctness',
    description: 'A group header with blanks after the opening bracket names a group no program reads',
    defaultSeverity: 'warn',
    recommended: true,
    fix: 'safe',
    messages: {
      serverGroup: {
        message: '{{header}} names the group "{{name}}", so the server never reads the {{count}} in it; expected [{{trimmed}}]',
        detail: 'the reader keeps the blanks after "["',
      },
      otherGroup: {
        message: '{{header}} names the group "{{name}}", so no program reads the {{count}} in it; expected [{{trimmed}}]',
        detail: 'the reader keeps the blanks after "["',
      },
    },
  },
  create(ctx) {
    const mycnf = ctx.config;
    return {
      end() {
        const serverGroups = new Set(mycnf.serverGroups.map(groupKey));
        const seen = new Set<string>();
        for (const entry of mycnf.files) {
          if (seen.has(entry.source.path)) continue;
          seen.add(entry.source.path);
          // Options per header in one pass: the count of the section each blank-led header opens.
          const sections: { line: MycnfGroupLine; options: number }[] = [];
          let current: { line: MycnfGroupLine; options: number } | undefined;
          for (const line of entry.document.lines) {
            if (line.kind === 'group') {
              current = line.closed && LEADING_BLANKS.test(line.name) ? { line, options: 0 } : undefined;
              if (current !== undefined) sections.push(current);
            } else if (line.kind === 'option' && current !== undefined) current.options++;
          }
          for (const { line, options } of sections) {
            const trimmed = line.name.replace(LEADING_BLANKS, '');
            if (trimmed === '') continue;
            const close = entry.source.text.indexOf(']', line.nameRange[1]);
            const range = [line.nameRange[0] - 1, close + 1] as const;
            ctx.report({
              at: { file: entry.source, range },
              messageId: serverGroups.has(groupKey(trimmed)) ? 'serverGroup' : 'otherGroup',
              data: {
                header: visible(entry.source.slice(range)),
                name: visible(line.name),
                trimmed,
                count: options === 1 ? '1 option' : `${options} options`,
              },
              fix: () => ({ file: entry.source, range: [line.nameRange[0], close], text: trimmed }),
            });
          }
        }
      },
    };
  },
});

/** Tabs shown as `\t`, so the message says what the header holds. */
function visible(text: string): string {
  return text.replaceAll('\t', '\\t');
}
