import { featureInfo, latestSupport, type ClientProfile } from './clients.ts';

/** Why something was taken out of a client view. */
type RemovalRule = 'caniemail' | 'caniemail-note' | 'gmail-clip' | 'images-off';

/** One kind of thing a client view removed or replaced, with every place it was. */
export interface Removal {
  rule: RemovalRule;
  /** What went, as written in the email (the first occurrence): `display: grid`, `<svg>`, `@media (...)`. */
  what: string;
  /** The sentence that says why, naming the client and the test or note it comes from. */
  reason: string;
  /** The caniemail feature slug, or null for the rules the data does not hold. */
  feature: string | null;
  /** The check finding it answers to: `compatibility/<slug>`, `size/gmail_clipped`, `accessibility/img-alt`. */
  finding: string | null;
  url: string | null;
  count: number;
  /** Lines of the original HTML (the first 200), ascending. */
  lines: number[];
}

const MAX_LINES = 200;

/** Collects removals, one entry per rule, feature and kind, and answers "is this supported here?". */
export class Removals {
  private readonly entries = new Map<string, Removal>();
  private readonly unsupported = new Map<string, boolean>();

  constructor(readonly profile: ClientProfile) {}

  /** The first slug this client's latest caniemail test marks `n` (not supported), or null. */
  firstUnsupported(slugs: readonly string[]): string | null {
    const client = this.profile.caniemail;
    if (client === null) return null;
    for (const slug of slugs) {
      let no = this.unsupported.get(slug);
      if (no === undefined) this.unsupported.set(slug, (no = latestSupport(client, slug)?.support === 'no'));
      if (no) return slug;
    }
    return null;
  }

  /** A partial-support note of this client's latest test for the feature contains `text`. */
  hasNote(slug: string, text: string): boolean {
    const client = this.profile.caniemail;
    if (client === null) return false;
    const support = latestSupport(client, slug);
    return support?.support === 'partial' && support.notes.some((n) => n.includes(text));
  }

  /** Something removed because the client's latest caniemail test says it is not supported. */
  unsupportedFeature(slug: string, kind: string, what: string, line: number): void {
    const tested = latestSupport(this.profile.caniemail!, slug)?.tested ?? '';
    const { title, url } = featureInfo(slug);
    this.add(`caniemail|${slug}|${kind}`, line, () => ({
      rule: 'caniemail',
      what,
      reason: `${title}: not supported by ${this.profile.name} (caniemail, latest test ${tested}).`,
      feature: slug,
      finding: `compatibility/${slug}`,
      url,
    }));
  }

  /** Something removed by a note of a partial-support entry (`Not supported inside the <body>`). */
  noted(slug: string, kind: string, what: string, note: string, line: number): void {
    const tested = latestSupport(this.profile.caniemail!, slug)?.tested ?? '';
    const { title, url } = featureInfo(slug);
    this.add(`note|${slug}|${kind}`, line, () => ({
      rule: 'caniemail-note',
      what,
      reason: `${title}: partial in ${this.profile.name} (caniemail, latest test ${tested}): "${note}"`,
      feature: slug,
      finding: `compatibility/${slug}`,
      url,
    }));
  }

  /** A removal by a rule the data does not hold (the clip, images off). */
  other(rule: 'gmail-clip' | 'images-off', kind: string, what: string, reason: string, finding: string | null, line: number): void {
    this.add(`${rule}|${kind}`, line, () => ({ rule, what, reason, feature: null, finding, url: null }));
  }

  list(): Removal[] {
    return [...this.entries.values()];
  }

  private add(key: string, line: number, make: () => Omit<Removal, 'count' | 'lines'>): void {
    let entry = this.entries.get(key);
    if (!entry) this.entries.set(key, (entry = { ...make(), count: 0, lines: [] }));
    entry.count++;
    const last = entry.lines[entry.lines.length - 1];
    if (entry.lines.length < MAX_LINES && (last === undefined || line > last)) entry.lines.push(line);
  }
}
