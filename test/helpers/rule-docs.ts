import { parse as parseYaml } from 'yaml';

export const REQUIRED_SECTIONS = ['Problematic configuration', 'Corrected configuration', 'Why', 'Options', 'Exceptions', 'References'];

interface CodeExample {
  readonly section: string;
  readonly language: string;
  readonly code: string;
  /** From an `<!-- fixture: {...} -->` comment right before the block. */
  readonly settings: Record<string, unknown>;
}

export interface RuleDoc {
  readonly frontMatter: Record<string, unknown>;
  readonly title: string;
  readonly sections: readonly string[];
  readonly examples: readonly CodeExample[];
  readonly references: readonly string[];
}

/** Splits a docs/rules page into front matter, title, `##` sections and fenced examples. */
export function parseRuleDoc(text: string): RuleDoc {
  const match = /^---\n([\s\S]*?)\n---\n/.exec(text);
  const frontMatter = match === null ? {} : (parseYaml(match[1] as string) as Record<string, unknown>);
  const body = match === null ? text : text.slice(match[0].length);
  const title = /^# (.*)$/m.exec(body)?.[1] ?? '';
  const sections: string[] = [];
  const examples: CodeExample[] = [];
  const references: string[] = [];
  let section = '';
  let pendingSettings: Record<string, unknown> = {};
  const lines = body.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const heading = /^## (.*)$/.exec(line);
    if (heading !== null) {
      section = heading[1] as string;
      sections.push(section);
      continue;
    }
    const fixture = /^<!-- fixture: (.*) -->$/.exec(line);
    if (fixture !== null) {
      pendingSettings = parseYaml(fixture[1] as string) as Record<string, unknown>;
      continue;
    }
    const fence = /^```(\w+)$/.exec(line);
    if (fence !== null) {
      const code: string[] = [];
      for (i++; i < lines.length && lines[i] !== '```'; i++) code.push(lines[i] as string);
      examples.push({ section, language: fence[1] as string, code: `${code.join('\n')}\n`, settings: pendingSettings });
      pendingSettings = {};
      continue;
    }
    if (section === 'References' && line.trim() !== '') references.push(line);
  }
  return { frontMatter, title, sections, examples, references };
}
