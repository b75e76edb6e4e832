import { accessSync, constants } from 'node:fs';
import * as path from 'node:path';

/** PATH of the child: the system directories only, so the binaries are the installed ones. */
export const SERVER_TOOL_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** Absolute path of an executable in these directories (default: PATH, then the usual sbin directories), if any. */
export function findServerTool(
  name: string,
  directories: readonly string[] = [...(process.env.PATH ?? '').split(path.delimiter), ...SERVER_TOOL_PATH.split(':')],
): string | undefined {
  for (const dir of directories) {
    if (dir === '') continue;
    const candidate = path.join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      continue;
    }
  }
  return undefined;
}
