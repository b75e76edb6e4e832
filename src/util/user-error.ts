/**
 * An error the user can act on (bad input, a config mistake, a file that
 * cannot be written): printed as one line, exit code 2, no stack trace.
 */
export class UserError extends Error {}
