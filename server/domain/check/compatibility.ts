import data from './caniemail-data.json' with { type: 'json' };
import type { FeatureUses } from './features.ts';
import { MARKET_SHARE } from './market-share.ts';

/** The caniemail data as scripts/update-caniemail.mjs writes it. */
interface CaniemailData {
  source: { package: string; version: string; license: string; data_date: string };
  nicenames: { family: Record<string, string>; platform: Record<string, string> };
  features: Record<
    string,
    { title: string; category: string; url: string; stats: Record<string, Record<string, Record<string, string>>>; notes: Record<string, string> }
  >;
}

const CANIEMAIL = data as CaniemailData;

import { PLATFORMS, type Platform } from './platforms.ts';
export { PLATFORMS, type Platform } from './platforms.ts';
type Support = 'yes' | 'partial' | 'no';

/** caniemail's platforms, grouped as Mailpit's filter groups them. */
const PLATFORM_GROUP: Record<string, Platform> = {
  macos: 'desktop',
  windows: 'desktop',
  'windows-mail': 'desktop',
  'desktop-app': 'desktop',
  'desktop-webmail': 'web',
  webmail: 'web',
  'outlook-com': 'web',
  'mobile-webmail': 'mobile',
  ios: 'mobile',
  android: 'mobile',
};

export interface EmailClient {
  /** `family.platform`, as caniemail names them: `gmail.android`, `outlook.windows`. */
  id: string;
  name: string;
  family: string;
  platform: Platform;
  /** Share of email opens (percent) used by market_score; 0 when no figure is known. */
  market_share: number;
}

interface CompatibilityWarning {
  feature: string;
  title: string;
  category: string;
  /** `error` when a client considered does not support it at all, else `warning` (partial). */
  severity: 'error' | 'warning';
  /**
   * `breaks`: where it is not supported, the email looks or works differently (it counts in the
   * scores); `ignored`: a progressive enhancement a client without it simply does not apply
   * (dark-mode and reduced-motion queries, color-scheme, hover), or used only inside one: it does
   * not lower the scores (docs/checks.md, "The two scores").
   */
  impact: 'breaks' | 'ignored';
  url: string;
  /** Occurrences in the HTML. */
  count: number;
  /** Of those, the ones inside an enhancement (a dark-mode, reduced-motion or hover query, a :hover rule): not counted in the scores. */
  enhancement_count: number;
  lines: number[];
  /** Each client considered, by its most recent test in the data. Clients never tested are left out. */
  support: Record<string, Support>;
  /** caniemail's note for a client whose support comes with one. */
  notes: Record<string, string>;
  /** Percent of the tested client versions (every version, as Mailpit counts) without, or with partial, support. */
  unsupported_pct: number;
  partial_pct: number;
  /** Percent of opens (by the market shares of docs/checks.md) in clients without, or with partial, support. */
  market_unsupported_pct: number;
  market_partial_pct: number;
}

export interface CompatibilityReport {
  /**
   * Mailpit's worst-case score: 100 minus the worst warning weighted by how often it occurs,
   * counting only the uses that break something where unsupported (`impact`).
   */
  score: number;
  /** The same formula with each client weighted by its share of opens instead of counting tested versions. */
  market_score: number;
  data: { source: string; version: string; license: string; date: string };
  platforms: Platform[];
  /** Elements counted as Mailpit counts them (the denominator of the score). */
  nodes: number;
  warnings: CompatibilityWarning[];
  clients: EmailClient[];
}

const KNOWN = new Set(Object.keys(CANIEMAIL.features));

/** Features a client that lacks them ignores without harm: the email is shown as it would be without them. */
const ENHANCEMENTS = new Set([
  'css-at-media-prefers-color-scheme',
  'css-at-media-prefers-reduced-motion',
  'html-meta-color-scheme',
  'css-color-scheme',
  'css-pseudo-class-hover',
  'css-at-media-hover',
]);

/** The caniemail feature slugs in the shipped data. */
export function knownFeatures(): ReadonlySet<string> {
  return KNOWN;
}

const ALL_CLIENTS: EmailClient[] = (() => {
  const seen = new Map<string, EmailClient>();
  for (const feature of Object.values(CANIEMAIL.features)) {
    for (const [family, platforms] of Object.entries(feature.stats)) {
      for (const platform of Object.keys(platforms)) {
        const id = `${family}.${platform}`;
        const group = PLATFORM_GROUP[platform];
        if (seen.has(id) || !group) continue;
        seen.set(id, {
          id,
          name: `${CANIEMAIL.nicenames.family[family] ?? family} ${CANIEMAIL.nicenames.platform[platform] ?? platform}`,
          family,
          platform: group,
          market_share: MARKET_SHARE[id] ?? 0,
        });
      }
    }
  }
  return [...seen.values()].sort((a, b) => b.market_share - a.market_share || a.name.localeCompare(b.name));
})();

/** Every client of the data, optionally only those of some platforms. */
export function emailClients(platforms: readonly Platform[] = PLATFORMS): EmailClient[] {
  return ALL_CLIENTS.filter((c) => platforms.includes(c.platform));
}

function dataInfo(): CompatibilityReport['data'] {
  const { source } = CANIEMAIL;
  return { source: `${source.package} ${source.version} (caniemail.com)`, version: source.version, license: source.license, date: source.data_date };
}

function supportOf(value: string): Support | null {
  const code = value.trim()[0];
  return code === 'y' ? 'yes' : code === 'n' ? 'no' : code === 'a' ? 'partial' : null;
}

/**
 * The compatibility report for the features an email uses, against the clients of the given
 * platforms. `nodes` is the element count Mailpit divides by.
 */
export function compatibilityReport(uses: FeatureUses, nodes: number, platforms: readonly Platform[] = PLATFORMS): CompatibilityReport {
  const clients = emailClients(platforms);
  const considered = new Set(clients.map((c) => c.id));
  const totalShare = clients.reduce((sum, c) => sum + c.market_share, 0);
  const warnings: (CompatibilityWarning & { weight: number })[] = [];
  let worstPartial = 0;
  let worstUnsupported = 0;
  let worstMarketPartial = 0;
  let worstMarketUnsupported = 0;
  const shareOf = new Map(clients.map((c) => [c.id, c.market_share]));

  for (const [slug, use] of uses) {
    const feature = CANIEMAIL.features[slug]!;
    const support: Record<string, Support> = {};
    const notes: Record<string, string> = {};
    let yes = 0;
    let no = 0;
    let partial = 0;
    for (const [family, byPlatform] of Object.entries(feature.stats)) {
      for (const [platform, versions] of Object.entries(byPlatform)) {
        const id = `${family}.${platform}`;
        if (!considered.has(id)) continue;
        const results = Object.values(versions);
        for (const value of results) {
          const s = supportOf(value);
          if (s === 'yes') yes++;
          else if (s === 'no') no++;
          else if (s === 'partial') partial++;
        }
        // The most recent test decides what the client does today (the data lists them in order).
        const latest = results[results.length - 1] ?? '';
        const current = supportOf(latest);
        if (current === null) continue;
        support[id] = current;
        const note = /#(\d+)/.exec(latest)?.[1];
        if (note !== undefined && feature.notes[note]) notes[id] = feature.notes[note]!;
      }
    }
    const tested = yes + no + partial;
    const entries = Object.entries(support);
    if (tested === 0 || entries.every(([, s]) => s === 'yes')) continue;
    const unsupportedPct = (no / tested) * 100;
    const partialPct = (partial / tested) * 100;
    // Only the uses whose absence breaks something count: an enhancement, or a use inside one, costs nothing.
    const breaking = ENHANCEMENTS.has(slug) ? 0 : use.count - (use.enhancement ?? 0);
    const frequency = breaking === 0 ? 0 : nodes > 0 ? breaking / nodes : 1;
    worstPartial = Math.max(worstPartial, partialPct * frequency);
    worstUnsupported = Math.max(worstUnsupported, unsupportedPct * frequency);
    let marketNo = 0;
    let marketPartial = 0;
    for (const [id, s] of entries) {
      if (s === 'no') marketNo += shareOf.get(id) ?? 0;
      else if (s === 'partial') marketPartial += shareOf.get(id) ?? 0;
    }
    const marketUnsupportedPct = totalShare > 0 ? (marketNo / totalShare) * 100 : 0;
    const marketPartialPct = totalShare > 0 ? (marketPartial / totalShare) * 100 : 0;
    worstMarketUnsupported = Math.max(worstMarketUnsupported, marketUnsupportedPct * frequency);
    worstMarketPartial = Math.max(worstMarketPartial, marketPartialPct * frequency);
    warnings.push({
      feature: slug,
      title: feature.title,
      category: feature.category,
      severity: entries.some(([, s]) => s === 'no') ? 'error' : 'warning',
      impact: breaking === 0 ? 'ignored' : 'breaks',
      url: feature.url,
      count: use.count,
      enhancement_count: use.enhancement ?? 0,
      lines: use.lines,
      support,
      notes,
      unsupported_pct: round(unsupportedPct),
      partial_pct: round(partialPct),
      market_unsupported_pct: round(marketUnsupportedPct),
      market_partial_pct: round(marketPartialPct),
      weight: (unsupportedPct + partialPct) * frequency,
    });
  }

  // Mailpit sorts the warnings that cost the most first.
  warnings.sort((a, b) => b.weight - a.weight || a.feature.localeCompare(b.feature));
  return {
    score: round(Math.max(0, 100 - worstPartial - worstUnsupported)),
    market_score: round(Math.max(0, 100 - worstMarketPartial - worstMarketUnsupported)),
    data: dataInfo(),
    platforms: [...platforms],
    nodes,
    warnings: warnings.map(({ weight: _, ...w }) => w),
    clients,
  };
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}
