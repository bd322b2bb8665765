import type { CssBlock } from './css-scan.ts';

/**
 * What only enhances an email (docs/checks.md, "The two scores"): a client without it shows
 * the email as it would be without it, so the scores do not count it.
 */

/** A rule that applies on hover only. */
export const HOVER = /:hover\b/i;

/** A media query that only enhances: dark mode, reduced motion, hover. */
export function isEnhancementQuery(prelude: string): boolean {
  const text = prelude.toLowerCase();
  return text.includes('prefers-color-scheme') || text.includes('prefers-reduced-motion') || /\(\s*(any-)?hover\b/.test(text);
}

/** Whether a rule's block, or one around it, is an enhancement query; each block is looked at once. */
export function enhancementBlocks(): (block: CssBlock | null) => boolean {
  const known = new Map<CssBlock, boolean>();
  const enhancing = (block: CssBlock | null): boolean => {
    if (block === null) return false;
    let answer = known.get(block);
    if (answer === undefined) {
      // Outer blocks first, without recursion (a deep nesting would overflow the stack).
      const chain: CssBlock[] = [];
      for (let b: CssBlock | null = block; b !== null && !known.has(b); b = b.parent) chain.push(b);
      for (let i = chain.length - 1; i >= 0; i--) {
        const b = chain[i]!;
        known.set(b, isEnhancementQuery(b.prelude.replace(/^@[-\w]+/, '')) || (b.parent !== null && known.get(b.parent)!));
      }
      answer = known.get(block)!;
    }
    return answer;
  };
  return enhancing;
}
