import type { SymbolReference } from './types';

/** Collects identifier uses into one entry per name: first line and a count, in order of first use. */
export class ReferenceCounter {
  private readonly byName = new Map<string, SymbolReference>();

  /** Count one use of `name` on a 1-based line. */
  add(name: string, line: number): void {
    const seen = this.byName.get(name);
    if (seen) {
      seen.count += 1;
      if (line < seen.line) seen.line = line;
    } else {
      this.byName.set(name, { name, line, count: 1 });
    }
  }

  /** The references, sorted by first line then name. */
  list(): SymbolReference[] {
    return [...this.byName.values()].sort((a, b) => a.line - b.line || a.name.localeCompare(b.name));
  }
}
