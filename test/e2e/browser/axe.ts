import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Page } from 'playwright-core';

// axe-core's browser build. It is evaluated in the page rather than added as a <script> tag: the
// inbox's CSP refuses injected scripts, correctly, and the audit must not loosen it.
const require = createRequire(import.meta.url);
const AXE_SOURCE = readFileSync(join(dirname(require.resolve('axe-core')), 'axe.min.js'), 'utf8');

const WCAG_A_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[]; failureSummary?: string }[];
}

/**
 * The WCAG 2.1 A and AA violations on the page as it is now, one readable line per node.
 * `iframes: false`: the captured email inside the sandboxed preview frames is the sender's
 * markup, not ours, so axe does not go into the frames; the frame elements themselves (their
 * titles) are still audited.
 */
export async function violations(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  const found = await page.evaluate(async (values) => {
    const axe = (window as unknown as { axe: { run(context: unknown, options: unknown): Promise<{ violations: Violation[] }> } }).axe;
    const result = await axe.run(document, { runOnly: { type: 'tag', values }, iframes: false, resultTypes: ['violations'] });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target, failureSummary: n.failureSummary })),
    }));
  }, WCAG_A_AA);
  return found.flatMap((v) =>
    v.nodes.map(
      (n) => `${v.id} (${v.impact}): ${v.help} at ${JSON.stringify(n.target)}${n.failureSummary ? `: ${n.failureSummary.replace(/\s+/g, ' ')}` : ''}`,
    ),
  );
}
