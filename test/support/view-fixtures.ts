import { readFileSync } from 'node:fs';
import type { ClientView } from '../../server/domain/views/render.ts';

/** A client-view fixture of fixtures/emails/views/. */
export function viewFixture(name: string): string {
  return readFileSync(new URL(`../../fixtures/emails/views/${name}`, import.meta.url), 'utf8');
}

/** The removals as `rule feature count lines` lines, in the order the view lists them. */
export function removals(view: ClientView): string[] {
  return view.removed.map((r) => `${r.rule} ${r.feature ?? '-'} ×${r.count} @${r.lines.join(',')}`);
}

/** The text of the first `<style>` element of a view. */
export function firstStyle(html: string): string {
  const start = html.indexOf('<style>');
  return html.slice(start + 7, html.indexOf('</style>', start));
}
