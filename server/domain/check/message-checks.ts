import type { MessageRecord } from '../entities.ts';
import type { Events } from '../events.ts';
import type { Messages } from '../messages/messages.ts';
import { analyse, report, type Analysis, type CheckInput, type CheckReport } from './check.ts';
import { PLATFORMS, type Platform } from './compatibility.ts';
import { scanHtml } from './html-scan.ts';
import { checkLinks, linkTargets, type LinkCheckOptions, type LinkResult, type LinkTarget } from './links.ts';
import { spamdReport, SpamdUnavailable, type SpamdTarget, type SpamReport } from './spamd.ts';

export interface MessageChecksOptions {
  /** spamd's address (--spamassassin); null: no spam check. */
  spamd: SpamdTarget | null;
  /** Captures whose check is kept; the least recently used goes first. */
  maxEntries?: number;
}

interface Cached {
  analysis: Analysis;
  spam: { report: SpamReport | null; note: string | null };
}

export const SPAM_OFF_NOTE =
  "The spam check is off. Start Pigeonhole with --spamassassin HOST:PORT (or PIGEONHOLE_SPAMASSASSIN) pointing at a running spamd, e.g. Debian's: apt-get install spamassassin spamd, then spamd --listen 127.0.0.1 --port 783.";

/**
 * The checks of captured mail: computed on demand from the stored message, kept until the
 * message goes (deleted, cleared, reset), at most `maxEntries` of them.
 */
export class MessageChecks {
  private readonly cache = new Map<number, Promise<Cached>>();
  private readonly maxEntries: number;

  constructor(
    private readonly messages: Messages,
    events: Events,
    private readonly options: MessageChecksOptions,
  ) {
    this.maxEntries = options.maxEntries ?? 200;
    events.on('message.deleted', (records) => {
      for (const record of records) this.cache.delete(record.seq);
    });
    events.on('message.cleared', () => this.cache.clear());
    events.on('sandbox.reset', () => this.cache.clear());
  }

  /** The check of a capture for the clients of the given platforms. */
  async check(record: MessageRecord, platforms: readonly Platform[] = PLATFORMS): Promise<CheckReport> {
    let entry = this.cache.get(record.seq);
    if (entry) {
      // Most recently used last.
      this.cache.delete(record.seq);
      this.cache.set(record.seq, entry);
    } else {
      entry = this.compute(record);
      this.cache.set(record.seq, entry);
      while (this.cache.size > this.maxEntries) this.cache.delete(this.cache.keys().next().value!);
      // A failed computation is not kept: the next request tries again.
      entry.catch(() => this.cache.delete(record.seq));
    }
    const { analysis, spam } = await entry;
    return report(analysis, platforms, spam);
  }

  /** Whether a capture's check is cached (for tests and metrics). */
  cached(record: MessageRecord): boolean {
    return this.cache.has(record.seq);
  }

  /** The http(s) links and images of a capture, and how many other URLs were left out. */
  async linkTargets(record: MessageRecord): Promise<{ targets: LinkTarget[]; skipped: number }> {
    const html = await this.messages.html(record);
    return html === null ? { targets: [], skipped: 0 } : linkTargets(scanHtml(html));
  }

  /** Checks the targets (the only thing in Pigeonhole that reaches out, and only when asked). */
  checkLinks(targets: readonly LinkTarget[], options?: LinkCheckOptions): AsyncGenerator<LinkResult> {
    return checkLinks(targets, options);
  }

  private async compute(record: MessageRecord): Promise<Cached> {
    const [html, text, headers, raw] = await Promise.all([
      this.messages.html(record),
      this.messages.text(record),
      this.messages.headers(record),
      this.messages.raw(record).catch(() => null),
    ]);
    const input: CheckInput = {
      html,
      text,
      headers,
      messageBytes: raw?.length ?? null,
      attachmentSizes: record.attachments.map((a) => a.size),
      source: record.source,
    };
    const analysis = analyse(input);
    const spam = await this.spam(raw);
    if (spam.note !== null && spam.report === null && this.options.spamd !== null) {
      // spamd was down: keep the rest, but ask spamd again next time.
      this.cache.delete(record.seq);
    }
    return { analysis, spam };
  }

  private async spam(raw: Buffer | null): Promise<Cached['spam']> {
    if (this.options.spamd === null) return { report: null, note: SPAM_OFF_NOTE };
    if (raw === null) return { report: null, note: 'The message has no stored .eml to give spamd.' };
    try {
      return { report: await spamdReport(raw, this.options.spamd), note: null };
    } catch (error) {
      if (error instanceof SpamdUnavailable) return { report: null, note: error.message };
      throw error;
    }
  }
}
