/** A server's option names, sorted, for exact look-ups and my_getopt's prefix search. */
export class OptionList {
  private readonly names: readonly string[];
  private readonly known: ReadonlySet<string>;

  constructor(names: readonly string[]) {
    this.names = [...names].sort();
    this.known = new Set(this.names);
  }

  has(key: string): boolean {
    return this.known.has(key);
  }

  all(): readonly string[] {
    return this.names;
  }

  /** `findopt`: an exact name, else every option the text is a prefix of. */
  find(key: string): readonly string[] {
    if (this.known.has(key)) return [key];
    let low = 0;
    let high = this.names.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if ((this.names[mid] as string) < key) low = mid + 1;
      else high = mid;
    }
    const found: string[] = [];
    for (let i = low; i < this.names.length && (this.names[i] as string).startsWith(key); i++) found.push(this.names[i] as string);
    return found;
  }
}
