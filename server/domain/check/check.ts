import type { HeaderField } from '../mail/headers.ts';
import { accessibilityReport, type AccessibilityReport } from './accessibility.ts';
import { compatibilityReport, knownFeatures, PLATFORMS, type CompatibilityReport, type Platform } from './compatibility.ts';
import { darkModeReport, type DarkModeReport } from './dark-mode.ts';
import { findFeatures, type FeatureUses } from './features.ts';
import { headersReport, type HeadersReport } from './headers-check.ts';
import { scanHtml } from './html-scan.ts';
import { sizeReport, type SizeReport } from './size.ts';
import { templateReport, type TemplateReport } from './template-findings.ts';
import type { SpamReport } from './spamd.ts';

/** What a check reads: a capture's parts, or a draft's. */
export interface CheckInput {
  html: string | null;
  text: string | null;
  /** The header fields of the .eml; null for a draft, which has none yet. */
  headers: readonly HeaderField[] | null;
  /** Bytes of the whole message; null for a draft (estimated from its parts). */
  messageBytes: number | null;
  attachmentSizes: readonly number[];
  /** How it arrived (api, smtp, flow) or `draft`. */
  source: string;
}

/** The part of a check that does not depend on the platform filter (what the cache keeps). */
export interface Analysis {
  uses: FeatureUses | null;
  nodes: number;
  size: SizeReport;
  accessibility: AccessibilityReport;
  dark_mode: DarkModeReport | null;
  headers: HeadersReport | null;
  template: TemplateReport;
}

export interface CheckReport {
  /** Compatibility with the email clients in caniemail's data; null without an HTML part. */
  html: CompatibilityReport | null;
  size: SizeReport;
  accessibility: AccessibilityReport;
  dark_mode: DarkModeReport | null;
  headers: HeadersReport | null;
  /** A full document inside the account template, merge tags left unfilled. */
  template: TemplateReport;
  /** SpamAssassin's verdict from spamd; null when --spamassassin is not set (see spam_note). */
  spam: SpamReport | null;
  spam_note: string | null;
}

/** Everything but spam, in one pass over the HTML; pure, so captures and drafts share it. */
export function analyse(input: CheckInput): Analysis {
  const scan = input.html === null ? null : scanHtml(input.html);
  const nodes = scan === null ? 0 : countNodes(scan.elements, scan.hasBody);
  return {
    uses: scan === null ? null : findFeatures(scan, knownFeatures()),
    nodes,
    size: sizeReport({ html: input.html, text: input.text, messageBytes: input.messageBytes, attachmentSizes: input.attachmentSizes }),
    accessibility: accessibilityReport(input.html, input.text, scan),
    dark_mode: scan === null ? null : darkModeReport(scan),
    headers: input.headers === null ? null : headersReport(input.headers, { source: input.source }),
    template: templateReport(input.html, input.text, scan, input.source),
  };
}

/** The report for one platform filter, with spam's part (or why there is none). */
export function report(
  analysis: Analysis,
  platforms: readonly Platform[] = PLATFORMS,
  spam: { report: SpamReport | null; note: string | null } = { report: null, note: null },
): CheckReport {
  return {
    html: analysis.uses === null ? null : compatibilityReport(analysis.uses, analysis.nodes, platforms),
    size: analysis.size,
    accessibility: analysis.accessibility,
    dark_mode: analysis.dark_mode,
    headers: analysis.headers,
    template: analysis.template,
    spam: spam.report,
    spam_note: spam.note,
  };
}

/** Elements as Mailpit counts them: all but html, head and meta in a document; all in a fragment. */
function countNodes(elements: readonly { name: string }[], hasBody: boolean): number {
  if (!hasBody) return elements.length;
  let n = 0;
  for (const e of elements) if (e.name !== 'html' && e.name !== 'head' && e.name !== 'meta') n++;
  return n;
}
