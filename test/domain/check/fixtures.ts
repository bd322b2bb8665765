import { readFileSync } from 'node:fs';
import { analyse, report, type CheckInput } from '../../../server/domain/check/check.ts';

/** A real-world email of fixtures/emails/. */
export function fixture(name: string): string {
  return readFileSync(new URL(`../../../fixtures/emails/${name}`, import.meta.url), 'utf8');
}

/** The whole check of a draft, as POST /api/check computes it. */
export function checkHtml(html: string, extra: Partial<CheckInput> = {}) {
  return report(analyse({ html, text: null, headers: null, messageBytes: null, attachmentSizes: [], source: 'draft', ...extra }));
}

/** The 1-based line of the first occurrence of `needle` in `text`. */
export function lineOf(text: string, needle: string): number {
  const at = text.indexOf(needle);
  if (at < 0) throw new Error(`${needle} is not in the text`);
  return text.slice(0, at).split('\n').length;
}
