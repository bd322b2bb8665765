import type { CheckReport } from '../../types.ts';

/** One finding of a check report, with a key that names it across two reports. */
export interface Finding {
  key: string;
  section: string;
  severity: 'error' | 'warning';
  text: string;
}

/** Every finding of a report: client support, accessibility, dark mode, headers, size, spam rules. */
function findings(report: CheckReport): Finding[] {
  const out: Finding[] = [];
  for (const w of report.html?.warnings ?? [])
    out.push({ key: `compat:${w.feature}`, section: 'Email clients', severity: w.severity, text: `${w.title} (${w.count}×)` });
  for (const issue of report.accessibility.issues)
    out.push({ key: `a11y:${issue.rule}:${issue.message}`, section: 'Accessibility', severity: issue.severity, text: issue.message });
  for (const f of report.dark_mode?.findings ?? []) out.push({ key: `dark:${f.rule}`, section: 'Dark mode', severity: 'warning', text: f.message });
  for (const f of report.headers?.findings ?? [])
    if (f.status !== 'ok') out.push({ key: `header:${f.header}:${f.status}`, section: 'Headers', severity: f.status, text: `${f.header}: ${f.message}` });
  if (report.size.gmail_clipped) out.push({ key: 'size:gmail-clipped', section: 'Size', severity: 'error', text: 'Clipped by Gmail (HTML over 102 KB)' });
  for (const rule of report.spam?.rules ?? [])
    if (rule.score > 0)
      out.push({ key: `spam:${rule.name}`, section: 'Spam', severity: 'warning', text: `${rule.name} (+${rule.score}): ${rule.description}` });
  return out;
}

/** What the later report finds that the earlier did not (new), what it no longer finds (gone), and what stays. */
export function diffFindings(before: CheckReport, after: CheckReport): { added: Finding[]; gone: Finding[]; kept: Finding[] } {
  const earlier = findings(before);
  const later = findings(after);
  const earlierKeys = new Set(earlier.map((f) => f.key));
  const laterKeys = new Set(later.map((f) => f.key));
  return {
    added: later.filter((f) => !earlierKeys.has(f.key)),
    gone: earlier.filter((f) => !laterKeys.has(f.key)),
    kept: later.filter((f) => earlierKeys.has(f.key)),
  };
}
