import type { Located, OptionSpec } from '../../../src/engine/types.js';
import type { MycnfConfig } from '../../../src/languages/mycnf/model.js';

/** The option every runtime rule takes: no verdict on counters that cover less than this. */
export const MIN_UPTIME_OPTION: OptionSpec = {
  type: 'seconds',
  default: 86_400,
  description:
    'no verdict before the server has run this long (MySQLTuner waits a day too): younger counters describe its start, not its work',
};

/** Where a runtime finding about `key` is reported: the line that sets it, else the start of the main option file. */
export function lineOrTop(mycnf: MycnfConfig, key: string): Located {
  return mycnf.effective(key) ?? { file: mycnf.root, range: [0, 0] as const };
}
