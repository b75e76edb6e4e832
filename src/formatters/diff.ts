import { collected, type StreamingFormatter } from './types.js';

/** Only the patch: one unified diff for every file, ready for `git apply` or `patch -p1`. */
export const writeDiffReport: StreamingFormatter = (input, write) => {
  write(input.patch);
};

export const formatDiff = collected(writeDiffReport);
