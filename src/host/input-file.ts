import * as path from 'node:path';
import { ConfigFileSystem, FileAccessError } from '../core/file-system.js';
import type { SourceFile } from '../core/source-file.js';
import { HostFactsError } from './facts.js';

/**
 * Reads a profile or facts file named on the command line. It goes through
 * ConfigFileSystem for its guards (no blocking on a FIFO, a size limit), and
 * every failure becomes a one-line HostFactsError that names the file as the
 * user wrote it and says which flag it came from.
 */
export function readHostInput(filePath: string, flag: string): SourceFile {
  const files = new ConfigFileSystem();
  try {
    return files.read(path.resolve(filePath), filePath);
  } catch (error) {
    if (error instanceof FileAccessError) throw new HostFactsError(`${flag} ${error.message}`);
    throw error;
  }
}
