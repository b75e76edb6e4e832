/** Where the rule pages live; links point at the release tag so an old version never shows newer behaviour. */
const REPOSITORY_URL = 'https://github.com/tune-lint/tune-lint';

export function docsUrl(version: string, ruleId?: string): string {
  const tag = `v${version}`;
  return ruleId === undefined ? `${REPOSITORY_URL}/blob/${tag}/README.md` : `${REPOSITORY_URL}/blob/${tag}/docs/rules/${ruleId}.md`;
}
