import { UserError } from '../util/user-error.js';

/**
 * One line for stderr: the message of an error the user can act on, or an
 * internal error with a hint; the stack only with --debug.
 */
export function describeError(error: unknown, debug: boolean): string {
  if (debug && error instanceof Error && error.stack !== undefined) return `tune-lint: ${error.stack}`;
  const message = error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error);
  return error instanceof UserError ? `tune-lint: ${message}` : `tune-lint: internal error: ${message} (run with --debug for the stack trace)`;
}
