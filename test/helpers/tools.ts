import type { TestContext } from 'node:test';
import { findServerTool } from '../../src/util/system-tools.js';

/** Absolute path of an executable on PATH (or the usual sbin directories), if any. */
export const findTool = (name: string): string | undefined => findServerTool(name);

/** True when tests run in CI, where every oracle must be present. */
export const inCI = process.env.CI === 'true';

/**
 * The oracle a test needs. Absent outside CI: the test is skipped with the
 * reason. Absent in CI: the test fails, so CI can never pass by skipping.
 */
export function requireTool(t: TestContext, name: string): string | undefined {
  const found = findTool(name);
  if (found !== undefined) return found;
  const reason = `${name} is not installed (.ci/run installs it)`;
  if (inCI) throw new Error(`CI=true but the oracle is missing: ${reason}`);
  t.skip(reason);
  return undefined;
}
