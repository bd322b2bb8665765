import type { Matcher } from './glob.ts';

/**
 * The `/regex/flags` form of a fault rule's recipient, run by a small automaton instead of the
 * JavaScript engine: a Thompson NFA simulated one character at a time (Pike's method, without
 * captures), so a test costs at most (text length × pattern states), whatever the pattern. A
 * backtracking engine takes exponential time on `/(a+)+$/` and the like (issue 19).
 *
 * The syntax is JavaScript's, less what needs backtracking: literals and escapes, `.`, classes
 * (`[a-z]`, `[^@]`, `\d \w \s` and their negations), groups (`(...)`, `(?:...)`, `(?<name>...)`),
 * `|`, the quantifiers `* + ? {n} {n,} {n,m}` (lazy ones match the same), `^ $ \b \B`, and the
 * flags i, m, s (g, y, u and d are accepted and change nothing for a yes/no test).
 * Backreferences and lookaround are refused with a message that says why.
 */

/** A pattern the linear engine does not run, with the reason a 400 shows. */
export class UnsupportedRegex extends Error {}

/** The most states a pattern may compile to (`{n,m}` repeats its operand). */
const MAX_STATES = 5_000;

type Test = (code: number) => boolean;
type Node =
  | { kind: 'char'; test: Test }
  | { kind: 'assert'; what: '^' | '$' | 'b' | 'B' }
  | { kind: 'seq'; items: Node[] }
  | { kind: 'alt'; options: Node[] }
  | { kind: 'repeat'; item: Node; min: number; max: number };

type State =
  | { kind: 'char'; test: Test; out: number }
  | { kind: 'split'; outs: number[] }
  | { kind: 'assert'; what: '^' | '$' | 'b' | 'B'; out: number }
  | { kind: 'match' };

const NEVER: Test = () => false;
const DIGIT: Test = (c) => c >= 0x30 && c <= 0x39;
const WORD: Test = (c) => DIGIT(c) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f;
const SPACE: Test = (c) =>
  (c >= 0x09 && c <= 0x0d) ||
  c === 0x20 ||
  c === 0xa0 ||
  c === 0x1680 ||
  (c >= 0x2000 && c <= 0x200a) ||
  c === 0x2028 ||
  c === 0x2029 ||
  c === 0x202f ||
  c === 0x205f ||
  c === 0x3000 ||
  c === 0xfeff;
const LINE_END: Test = (c) => c === 0x0a || c === 0x0d || c === 0x2028 || c === 0x2029;
const not =
  (test: Test): Test =>
  (c) =>
    !test(c);

/** Compiles `source` with `flags` (already checked by `new RegExp`); throws UnsupportedRegex. */
export function linearRegex(source: string, flags: string): Matcher {
  const parser = new Parser(source, flags.includes('s'), flags.includes('i'));
  const tree = parser.parse();
  const program = compile(tree);
  return { test: (text) => run(program, text, flags.includes('m')) };
}

class Parser {
  private at = 0;

  constructor(
    private readonly source: string,
    private readonly dotAll: boolean,
    private readonly ignoreCase: boolean,
  ) {}

  /** With the i flag, a test of characters as written also takes their other case. */
  private fold(test: Test): Test {
    if (!this.ignoreCase) return test;
    return (c) => {
      if (test(c)) return true;
      const ch = String.fromCharCode(c);
      const lower = ch.toLowerCase();
      const upper = ch.toUpperCase();
      return (lower.length === 1 && test(lower.charCodeAt(0))) || (upper.length === 1 && test(upper.charCodeAt(0)));
    };
  }

  parse(): Node {
    const node = this.alternation();
    if (this.at < this.source.length) throw new UnsupportedRegex(`unexpected "${this.source[this.at]}"`);
    return node;
  }

  private alternation(): Node {
    const options = [this.sequence()];
    while (this.source[this.at] === '|') {
      this.at++;
      options.push(this.sequence());
    }
    return options.length === 1 ? options[0]! : { kind: 'alt', options };
  }

  private sequence(): Node {
    const items: Node[] = [];
    while (this.at < this.source.length && this.source[this.at] !== '|' && this.source[this.at] !== ')') {
      let item = this.atom();
      for (;;) {
        const quantifier = this.quantifier();
        if (!quantifier) break;
        // A repeated assertion (`(\b)*`) holds once or may be skipped: it reads nothing.
        if (item.kind === 'assert') item = quantifier.min === 0 ? { kind: 'seq', items: [] } : item;
        else item = { kind: 'repeat', item, ...quantifier };
      }
      items.push(item);
    }
    return items.length === 1 ? items[0]! : { kind: 'seq', items };
  }

  private quantifier(): { min: number; max: number } | null {
    const c = this.source[this.at];
    let found: { min: number; max: number } | null = null;
    if (c === '*') found = { min: 0, max: Infinity };
    else if (c === '+') found = { min: 1, max: Infinity };
    else if (c === '?') found = { min: 0, max: 1 };
    if (found) this.at++;
    else if (c === '{') {
      const braces = /^\{(\d+)(,(\d*))?\}/.exec(this.source.slice(this.at, this.at + 24));
      if (!braces) return null;
      this.at += braces[0].length;
      const min = Number(braces[1]);
      found = { min, max: braces[2] === undefined ? min : braces[3] === '' ? Infinity : Number(braces[3]) };
    } else return null;
    if (this.source[this.at] === '?') this.at++;
    return found;
  }

  private atom(): Node {
    const c = this.source[this.at++]!;
    if (c === '.') return { kind: 'char', test: this.dotAll ? () => true : not(LINE_END) };
    if (c === '^') return { kind: 'assert', what: '^' };
    if (c === '$') return { kind: 'assert', what: '$' };
    if (c === '[') return { kind: 'char', test: this.characterClass() };
    if (c === '(') return this.group();
    if (c === '\\') return this.escape();
    if (c === '*' || c === '+' || c === '?') throw new UnsupportedRegex(`nothing to repeat before "${c}"`);
    const code = c.charCodeAt(0);
    return { kind: 'char', test: this.fold((x) => x === code) };
  }

  private group(): Node {
    if (this.source.startsWith('?:', this.at)) this.at += 2;
    else if (/^\?<[A-Za-z_$][\w$]*>/.test(this.source.slice(this.at, this.at + 40))) this.at = this.source.indexOf('>', this.at) + 1;
    else if (this.source[this.at] === '?') throw new UnsupportedRegex('lookahead and lookbehind need backtracking');
    const inner = this.alternation();
    if (this.source[this.at] !== ')') throw new UnsupportedRegex('an unclosed group');
    this.at++;
    return inner;
  }

  private escape(): Node {
    const c = this.source[this.at]!;
    if (c === 'b' || c === 'B') {
      this.at++;
      return { kind: 'assert', what: c };
    }
    if (/[1-9]/.test(c) || c === 'k') throw new UnsupportedRegex('backreferences need backtracking');
    return { kind: 'char', test: this.escapedTest(false) };
  }

  /** The character test of the escape after a backslash (`inClass`: `\b` is a backspace). */
  private escapedTest(inClass: boolean): Test {
    const c = this.source[this.at++];
    if (c === undefined) throw new UnsupportedRegex('a pattern ending in a backslash');
    switch (c) {
      case 'd':
        return DIGIT;
      case 'D':
        return not(DIGIT);
      case 'w':
        return WORD;
      case 'W':
        return not(WORD);
      case 's':
        return SPACE;
      case 'S':
        return not(SPACE);
    }
    const code = this.escapedCode(c, inClass);
    return this.fold((x) => x === code);
  }

  private escapedCode(c: string, inClass: boolean): number {
    const simple: Record<string, number> = { t: 9, n: 10, v: 11, f: 12, r: 13, '0': 0 };
    if (inClass && c === 'b') return 8;
    if (c in simple) return simple[c]!;
    const hex =
      c === 'x' ? /^[0-9a-fA-F]{2}/.exec(this.source.slice(this.at)) : c === 'u' ? /^[0-9a-fA-F]{4}/.exec(this.source.slice(this.at, this.at + 4)) : null;
    if (hex) {
      this.at += hex[0].length;
      return parseInt(hex[0], 16);
    }
    if (c === 'c' || c === 'p' || c === 'P') throw new UnsupportedRegex(`\\${c} escapes are not supported`);
    return c.charCodeAt(0);
  }

  private characterClass(): Test {
    const negated = this.source[this.at] === '^';
    if (negated) this.at++;
    const tests: Test[] = [];
    while (this.at < this.source.length && this.source[this.at] !== ']') {
      const low = this.classAtom();
      if (this.source[this.at] === '-' && this.source[this.at + 1] !== ']' && this.at + 1 < this.source.length && typeof low === 'number') {
        this.at++;
        const high = this.classAtom();
        if (typeof high !== 'number') throw new UnsupportedRegex('a range ending in a class escape');
        tests.push((x) => x >= low && x <= high);
      } else tests.push(typeof low === 'number' ? (x) => x === low : low);
    }
    if (this.source[this.at] !== ']') throw new UnsupportedRegex('an unclosed character class');
    this.at++;
    // Case is folded before the class is negated: /[^a]/i takes neither a nor A.
    const any = this.fold(tests.length === 0 ? NEVER : (x) => tests.some((test) => test(x)));
    return negated ? not(any) : any;
  }

  /** One character of a class: its code, or the test of a class escape (`\d`). */
  private classAtom(): number | Test {
    const c = this.source[this.at++]!;
    if (c !== '\\') return c.charCodeAt(0);
    const next = this.source[this.at];
    if (next !== undefined && 'dDwWsS'.includes(next)) return this.escapedTest(true);
    this.at++;
    return this.escapedCode(next ?? '', true);
  }
}

/** Thompson's construction: a list of states, the start state first. */
function compile(tree: Node): State[] {
  const states: State[] = [];
  const add = (state: State): number => {
    if (states.length >= MAX_STATES) throw new UnsupportedRegex(`the pattern is too large (over ${MAX_STATES} states once its repeats are expanded)`);
    return states.push(state) - 1;
  };
  /** Emits `node` so that it continues at `next`; returns its entry state. */
  const emit = (node: Node, next: number): number => {
    switch (node.kind) {
      case 'char':
        return add({ kind: 'char', test: node.test, out: next });
      case 'assert':
        return add({ kind: 'assert', what: node.what, out: next });
      case 'seq': {
        let entry = next;
        for (let i = node.items.length - 1; i >= 0; i--) entry = emit(node.items[i]!, entry);
        return entry;
      }
      case 'alt':
        return add({ kind: 'split', outs: node.options.map((option) => emit(option, next)) });
      case 'repeat': {
        let entry = next;
        if (node.max === Infinity) {
          // A loop: the split tries the item (which comes back to the split) or leaves.
          const split = add({ kind: 'split', outs: [] });
          (states[split] as { outs: number[] }).outs.push(emit(node.item, split), next);
          entry = split;
        } else {
          // x{0,k} is (x(x(x)?)?)?: each optional copy goes on into the next one or leaves.
          for (let i = node.min; i < node.max; i++) entry = add({ kind: 'split', outs: [emit(node.item, entry), next] });
        }
        for (let i = 0; i < node.min; i++) entry = emit(node.item, entry);
        return entry;
      }
    }
  };
  const match = add({ kind: 'match' });
  const start = emit(tree, match);
  // The start state is looked up by index 0: a jump to it goes first.
  states.push({ kind: 'split', outs: [start] });
  return states;
}

/** Whether the program matches anywhere in the text: one pass, each state at most once per position. */
function run(states: State[], text: string, multiline: boolean): boolean {
  const start = states.length - 1;
  const seen = new Int32Array(states.length).fill(-1);
  let current: number[] = [];
  let next: number[] = [];
  const isWord = (at: number) => at >= 0 && at < text.length && WORD(text.charCodeAt(at));
  const holds = (what: '^' | '$' | 'b' | 'B', at: number): boolean => {
    if (what === '^') return at === 0 || (multiline && LINE_END(text.charCodeAt(at - 1)));
    if (what === '$') return at === text.length || (multiline && LINE_END(text.charCodeAt(at)));
    const boundary = isWord(at - 1) !== isWord(at);
    return what === 'b' ? boundary : !boundary;
  };
  /** Adds a state and everything reachable from it without reading; true when that reaches a match. */
  const follow = (list: number[], from: number, at: number, mark: number): boolean => {
    const stack = [from];
    while (stack.length > 0) {
      const index = stack.pop()!;
      if (seen[index] === mark) continue;
      seen[index] = mark;
      const state = states[index]!;
      if (state.kind === 'match') return true;
      if (state.kind === 'char') list.push(index);
      else if (state.kind === 'assert') {
        if (holds(state.what, at)) stack.push(state.out);
      } else for (let i = state.outs.length - 1; i >= 0; i--) stack.push(state.outs[i]!);
    }
    return false;
  };
  for (let at = 0; at <= text.length; at++) {
    // Unanchored: a match may start at every position.
    if (follow(current, start, at, at)) return true;
    if (at === text.length) break;
    const code = text.charCodeAt(at);
    next.length = 0;
    for (const index of current) {
      const state = states[index] as Extract<State, { kind: 'char' }>;
      if (state.test(code) && follow(next, state.out, at + 1, at + 1)) return true;
    }
    [current, next] = [next, current];
  }
  return false;
}
