/**
 * Optimal string alignment distance (Levenshtein with an adjacent swap as one
 * edit) when it is at most `limit`, else `limit + 1`: rows stop as soon as
 * every path is longer than the limit.
 */
export function editDistance(a: string, b: string, limit: number): number {
  const ceiling = limit + 1;
  if (Math.abs(a.length - b.length) > limit) return ceiling;
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let rowMinimum = i;
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1);
      let cost = Math.min((previous[j] as number) + 1, (row[j - 1] as number) + 1, substitution);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) cost = Math.min(cost, (before[j - 2] as number) + 1);
      row.push(cost);
      rowMinimum = Math.min(rowMinimum, cost);
    }
    if (rowMinimum >= ceiling) return ceiling;
    before = previous;
    previous = row;
  }
  return Math.min(previous[b.length] as number, ceiling);
}

/**
 * How many distinct names one finder looks up. Each look-up compares the name
 * with every candidate; a file of a million different misspellings would
 * otherwise spend minutes on suggestions, which are a courtesy: past this many
 * the finder answers that it knows none.
 */
export const MAX_DISTINCT_LOOKUPS = 5000;

/**
 * Finds the one candidate nearest to a misspelt name. `limitOf` and `accept`
 * depend on the name alone, so the answer is remembered per name: a name
 * repeated on every line costs one pass over the candidates.
 */
export class NearestName {
  readonly #candidates: readonly string[];
  readonly #limitOf: (name: string) => number;
  readonly #accept: (name: string, candidate: string) => boolean;
  readonly #answers = new Map<string, string | undefined>();

  /** `accept` skips candidates of another kind (a section for a directive). */
  constructor(
    candidates: readonly string[],
    limitOf: (name: string) => number,
    accept: (name: string, candidate: string) => boolean = () => true,
  ) {
    this.#candidates = candidates;
    this.#limitOf = limitOf;
    this.#accept = accept;
  }

  /** The candidate within the name's limit of edits when no other is as near. */
  find(name: string): string | undefined {
    if (this.#answers.has(name)) return this.#answers.get(name);
    if (this.#answers.size >= MAX_DISTINCT_LOOKUPS) return undefined;
    const limit = this.#limitOf(name);
    let best: string | undefined;
    let bestDistance = limit + 1;
    let tied = false;
    if (limit > 0) {
      for (const candidate of this.#candidates) {
        if (!this.#accept(name, candidate)) continue;
        const distance = editDistance(name, candidate, limit);
        if (distance < bestDistance) {
          best = candidate;
          bestDistance = distance;
          tied = false;
        } else if (distance === bestDistance && distance <= limit) {
          tied = true;
        }
      }
    }
    const answer = tied ? undefined : best;
    this.#answers.set(name, answer);
    return answer;
  }
}
