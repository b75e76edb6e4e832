import { DEFAULT_BUDGET } from '../../src/analysis/sizing.js';
import { Configs } from '../../src/core/config-set.js';
import type { HostFacts } from '../../src/core/host-facts.js';
import type { LanguageConfig, LanguageConfigs, LanguageId } from '../../src/core/language.js';
import { DEFAULT_TARGETS } from '../../src/core/targets.js';
import type { LintUnit } from '../../src/engine/linter.js';
import { builtinLanguages } from '../../src/languages/index.js';

/** One host's configs, as lint() hands them to the linter: the built-in languages, the default targets and budget. */
export function unitOf(configs: { readonly [Id in LanguageId]?: readonly LanguageConfigs[Id][] }, host: HostFacts = {}): LintUnit {
  const byLanguage = new Map<LanguageId, readonly LanguageConfig[]>(
    builtinLanguages.map((language) => [language.id, (configs as Readonly<Record<string, readonly LanguageConfig[]>>)[language.id] ?? []]),
  );
  return { languages: builtinLanguages, configs: new Configs(byLanguage), host, targets: DEFAULT_TARGETS, budget: DEFAULT_BUDGET };
}
