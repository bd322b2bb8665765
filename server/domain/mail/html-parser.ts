import { Parser, type Handler, type ParserOptions } from 'htmlparser2';

/**
 * htmlparser2's Parser, with its stack of open elements kept in linear time. The Parser keeps
 * that stack top first (`unshift` to open, `indexOf` to find a closing tag's element), so each
 * open element costs as much as the depth: 250 KB of `<div>` took 4.5 s, 1 MB a minute
 * (issue 19). Here the same stack is stored top last, so opening and closing cost O(1), and a
 * closing tag whose element is not open is answered from a count, without a search. The events,
 * their order and the indices are exactly the Parser's (test/domain/mail/html-parser.test.ts
 * compares them on generated markup).
 */
export class HtmlParser extends Parser {
  constructor(cbs?: Partial<Handler> | null, options?: ParserOptions) {
    super(cbs, options);
    const self = this as unknown as Internals;
    const initial = self.foreignContext as boolean[];
    const foreign = new TopFirst<boolean>();
    for (let i = initial.length - 1; i >= 0; i--) foreign.unshift(initial[i]!);
    self.stack = new TopFirst<string>();
    self.foreignContext = foreign;
  }

  /** As the Parser's: every element still open is closed, innermost first. */
  override onend(): void {
    const self = this as unknown as Internals;
    if (self.cbs.onclosetag) {
      self.endIndex = self.startIndex;
      for (const name of (self.stack as TopFirst<string>).topFirst()) self.cbs.onclosetag(name, true);
    }
    self.cbs.onend?.();
  }
}

/** The Parser's fields this class replaces or reads (they are private in its typings). */
interface Internals {
  stack: unknown;
  foreignContext: unknown;
  cbs: Partial<Handler>;
  startIndex: number;
  endIndex: number;
}

/**
 * The array operations the Parser uses on its stacks (`[0]` is the top, `unshift` pushes,
 * `shift` pops, `indexOf` is the distance from the top), each in O(1) or in the distance found.
 */
class TopFirst<T> {
  private readonly items: T[] = [];
  private readonly counts = new Map<T, number>();

  get length(): number {
    return this.items.length;
  }

  /** The Parser only ever empties its stacks this way (`stack.length = 0`). */
  set length(value: number) {
    while (this.items.length > value) this.shift();
  }

  get 0(): T | undefined {
    return this.items[this.items.length - 1];
  }

  unshift(item: T): number {
    this.counts.set(item, (this.counts.get(item) ?? 0) + 1);
    return this.items.push(item);
  }

  shift(): T | undefined {
    if (this.items.length === 0) return undefined;
    const item = this.items.pop()!;
    const count = this.counts.get(item)! - 1;
    if (count === 0) this.counts.delete(item);
    else this.counts.set(item, count);
    return item;
  }

  /** How far from the top the nearest `item` is, or -1; the search costs that distance only. */
  indexOf(item: T): number {
    if (!this.counts.has(item)) return -1;
    const last = this.items.length - 1;
    for (let at = last; at >= 0; at--) if (this.items[at] === item) return last - at;
    return -1;
  }

  topFirst(): T[] {
    return this.items.slice().reverse();
  }
}

/** How deep the HTML nests elements and how many table cells it has, in one linear pass. */
export function htmlShape(html: string): { depth: number; cells: number } {
  let depth = 0;
  let deepest = 0;
  let cells = 0;
  new HtmlParser(
    {
      onopentag(name) {
        deepest = Math.max(deepest, ++depth);
        if (name === 'td' || name === 'th') cells++;
      },
      onclosetag() {
        depth--;
      },
    },
    { decodeEntities: false, lowerCaseTags: true },
  ).end(html);
  return { depth: deepest, cells };
}
