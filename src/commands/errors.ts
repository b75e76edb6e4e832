import { printable } from '../util/printable.js';
import { UserError } from '../util/user-error.js';

/**
 * One line for stderr: the message of an error the user can act on (a file
 * name in it may hold any byte, so control characters are escaped), or the
 * first line of an internal error with a hint; the stack only with --debug.
 */
export function describeError(error: unknown, debug: boolean): string {
  if (debug && error instanceof Error && error.stack !== undefined) return `tune-lint: ${error.stack}`;
  if (error instanceof UserError) return `tune-lint: ${printable(error.message)}`;
  const message = error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error);
  return `tune-lint: internal error: ${printable(message)} (run with --debug for the stack trace)`;
}
