import type { Rule, RuleOptions } from './types.js';

/** Identity helper that makes TypeScript infer a rule's options and message ids. */
export function defineRule<Options extends RuleOptions, MessageId extends string>(
  rule: Rule<Options, MessageId>,
): Rule<Options, MessageId> {
  return rule;
}
