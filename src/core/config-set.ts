import type { ConfigSet, LanguageConfig, LanguageConfigs, LanguageId } from './language.js';

const NONE: readonly never[] = [];

/** A host's configs by language (core/language.ts): built once per read, in the registry's order. */
export class Configs implements ConfigSet {
  constructor(private readonly byLanguage: ReadonlyMap<LanguageId, readonly LanguageConfig[]>) {}

  of<Id extends LanguageId>(id: Id): readonly LanguageConfigs[Id][] {
    // The map holds each language's own configs under its id: the reader put them there.
    return (this.byLanguage.get(id) ?? NONE) as readonly LanguageConfigs[Id][];
  }

  first<Id extends LanguageId>(id: Id): LanguageConfigs[Id] | undefined {
    return this.of(id)[0];
  }

  entries(): readonly { readonly language: LanguageId; readonly config: LanguageConfig }[] {
    return [...this.byLanguage].flatMap(([language, configs]) => configs.map((config) => ({ language, config })));
  }
}
