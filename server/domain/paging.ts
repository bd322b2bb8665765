/** One page of a filtered list and how many matched in all. */
export interface PageOf<T> {
  total: number;
  items: T[];
}

/**
 * Walks records newest first (from the end of an oldest-first list), counting every match and
 * keeping only the requested page: one pass, no copy of the whole list.
 */
export function pageNewestFirst<T>(all: readonly T[], match: (item: T) => boolean, offset: number, limit: number): PageOf<T> {
  const items: T[] = [];
  let total = 0;
  for (let i = all.length - 1; i >= 0; i--) {
    const item = all[i]!;
    if (!match(item)) continue;
    if (total >= offset && items.length < limit) items.push(item);
    total++;
  }
  return { total, items };
}
