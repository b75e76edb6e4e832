import type { Formatter } from './types.js';

/** Only the patch: one unified diff for every file, ready for `git apply` or `patch -p1`. */
export const formatDiff: Formatter = (input) => input.patch;
