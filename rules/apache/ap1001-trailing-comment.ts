import { defineRule } from '../../src/engine/define-rule.js';
import { versionAtLeast } from '../../src/core/targets.js';
import type { TextEdit } from '../../src/engine/types.js';
import { argumentCountError, commentError, directiveSpec, flagError, isFlag } from '../../src/languages/apache/directives.js';
import { indentationOf } from '../../src/languages/apache/edits.js';
import type { ApacheDirectiveUse } from '../../src/languages/apache/model.js';
import type { SourceFile } from '../../src/core/source-file.js';

export default defineRule('apache', {
  meta: {
    id: 'AP1001',
    name: 'trailing-comment',
    category: 'correctness',
    description: "A # after a directive's arguments is not a comment: httpd passes it to the directive as more arguments",
    defaultSeverity: 'error',
    recommended: true,
    fix: 'safe',
    messages: {
      fatal: {
        message:
          'trailing "{{comment}}" gives {{name}} {{given}} arguments, so httpd refuses to start; expected the comment on its own line',
        detail: 'httpd has no trailing comments: "{{error}}"',
      },
      fatalWord: {
        message: '{{name}} reads "{{comment}}" as arguments, so httpd refuses to start; expected the comment on its own line',
        detail: 'httpd has no trailing comments: "{{error}}"',
      },
      fatalValue: {
        message:
          '{{name}} reads "{{comment}}" as its value, so httpd refuses to start; expected the value, and the comment on its own line',
        detail: 'httpd has no trailing comments: "{{error}}"',
      },
      flagIgnored: {
        message: '{{name}} silently ignores "{{comment}}"; expected the comment on its own line',
        detail: 'httpd has no trailing comments, and {{name}} reads only its first word',
      },
      passedOn: {
        message: '{{name}} receives "{{comment}}" as {{which}}; expected the comment on its own line',
        detail: 'httpd has no trailing comments',
      },
    },
  },
  create(ctx) {
    const apache = ctx.config;
    // The argument shapes are httpd 2.4's (2.2's KeepAlive, for one, took exactly one word).
    const modern = versionAtLeast(ctx.targets.httpd, '2.4');
    const mpm = apache.mpm?.name;
    const judge = (use: ApacheDirectiveUse): void => {
      const at = use.node.args.findIndex(
        (arg) => arg.quote === undefined && use.file.text.startsWith('#', arg.range[0]) && !isNumericId(use.name, arg.value),
      );
      const first = use.node.args[at];
      if (first === undefined) return;
      const comment = use.file.text.slice(first.range[0], use.node.line.content[1]);
      const spec = modern ? directiveSpec(use.name) : undefined;
      const given = use.args.length;
      // What is left once the comment words are gone (`${VAR}` may have expanded to several words).
      const remaining = given - (use.node.args.length - at);
      const data = { name: use.node.name, comment: shorten(comment), given };
      if (spec !== undefined && isFlag(spec)) {
        if (at === 0) {
          ctx.report({ at: use, messageId: 'fatalValue', data: { ...data, error: flagError(spec) } });
        } else {
          ctx.report({ at: use, messageId: 'flagIgnored', severity: 'warn', data, fix: () => moveCommentAbove(use, at) });
        }
        return;
      }
      const refusal = spec === undefined ? undefined : commentError(spec, first.value);
      const error = refusal ?? (spec === undefined ? undefined : argumentCountError(spec, given, mpm));
      if (spec !== undefined && error !== undefined) {
        // Moving the comment is safe only when what stays is a valid line: then httpd starts and reads what was meant.
        const fixable = at > 0 && argumentCountError(spec, remaining, mpm) === undefined;
        ctx.report({
          at: use,
          messageId: refusal === undefined ? 'fatal' : 'fatalWord',
          data: { ...data, error },
          ...(fixable ? { fix: () => moveCommentAbove(use, at) } : {}),
        });
        return;
      }
      // The words are live arguments here (a value, an ErrorDocument text, a header): moving them would change what httpd does.
      ctx.report({ at: use, messageId: 'passedOn', severity: 'warn', data: { ...data, which: positions(at, use.node.args.length) } });
    };
    return {
      end() {
        const hashes = new HashFinder();
        for (const use of apache.uses) if (hashes.within(use.file, use.node.line)) judge(use);
      },
    };
  },
});

/**
 * Whether a line holds a `#`, from where the next one lies in its file: most
 * lines have none, and a handler called for every line to slice its text was
 * a sixth of the rules' time on 10,000 vhosts. Uses come in runs from one
 * file in rising order, so a file is searched onward, not again from the
 * start; where a file is left for an include and taken up again, the search
 * goes on from where it stood.
 */
class HashFinder {
  /** Per file, the offset searched from and the first `#` at or after it (-1: none). */
  private readonly searched = new Map<SourceFile, { from: number; next: number }>();
  private file: SourceFile | undefined = undefined;
  private state = { from: 0, next: -1 };

  within(file: SourceFile, line: { readonly start: number; readonly end: number }): boolean {
    if (file !== this.file) {
      this.file = file;
      let state = this.searched.get(file);
      if (state === undefined) {
        state = { from: line.start, next: file.text.indexOf('#', line.start) };
        this.searched.set(file, state);
      }
      this.state = state;
    }
    const state = this.state;
    if (line.start < state.from || (state.next !== -1 && state.next < line.start)) {
      state.from = line.start;
      state.next = file.text.indexOf('#', line.start);
    }
    return state.next !== -1 && state.next < line.end;
  }
}

/** `User #48`, `Group #-1`, `SuexecUserGroup #1000 #1000`: a `#` before digits is a numeric id there, not a comment. */
function isNumericId(name: string, word: string): boolean {
  return (name === 'user' || name === 'group' || name === 'suexecusergroup') && /^#-?\d+$/.test(word);
}

/** Moves `# ...` from the end of the line to a line of its own above, with the directive's indentation. */
function moveCommentAbove(use: ApacheDirectiveUse, at: number): TextEdit[] | null {
  const line = use.node.line;
  const before = use.node.args[at - 1];
  const comment = use.node.args[at];
  if (before === undefined || comment === undefined || line.physicalLines > 1) return null;
  const text = use.file.text.slice(comment.range[0], line.content[1]);
  // A comment line ending in a backslash would swallow the directive below it.
  if (text.endsWith('\\')) return null;
  const eol = line.eol === '' ? use.file.eol : line.eol;
  return [
    { file: use.file, range: [line.start, line.start], text: `${indentationOf(use.file, line)}${text}${eol}` },
    { file: use.file, range: [before.range[1], line.end - line.eol.length], text: '' },
  ];
}

/** `its argument`, `argument 2`, `arguments 2-3`: where the comment words land among the directive's arguments. */
function positions(at: number, total: number): string {
  if (at === 0) return total === 1 ? 'its argument' : 'its arguments';
  return total - at === 1 ? `argument ${at + 1}` : `arguments ${at + 1}-${total}`;
}

function shorten(text: string): string {
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}
