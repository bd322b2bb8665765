import type { MessageRecord } from '../entities.ts';
import { RelayFailed, ReleaseRefused } from '../errors.ts';
import { globMatcher, type Matcher } from '../patterns/glob.ts';
import type { Messages } from './messages.ts';

/** An SMTP server that takes a released capture (server/smtp/relay.ts: nodemailer's SMTP transport). */
export interface RelayTransport {
  /** How the relay is named in answers and logs (`smtp://host:port`, never its password). */
  readonly name: string;
  /** Sends the raw message as it is to `to` (the envelope's recipients); what the server answered. */
  send(envelope: { from: string; to: string[] }, raw: Buffer): Promise<{ accepted: string[]; rejected: string[]; response: string }>;
  close(): void;
}

/** What a release did. */
export interface Released {
  record: MessageRecord;
  to: string[];
  relay: string;
  accepted: string[];
  rejected: string[];
  response: string;
}

/**
 * Release to a real inbox, on purpose only (docs/sandbox-api.md, "Release to a real inbox"): a capture is relayed
 * through the configured SMTP server (`--relay`) to addresses the allow-list lets through
 * (`--relay-allow`, linear globs, any case), its message unchanged: only the envelope's
 * recipients are the ones asked for. Nothing else ever leaves the machine, and nothing is
 * released without a request for it. Each release is logged.
 */
export class Releases {
  private readonly allowed: Matcher[];

  constructor(
    private readonly messages: Messages,
    private readonly relay: { transport: RelayTransport; allow: readonly string[] } | null,
    private readonly log: (line: string) => void,
  ) {
    this.allowed = (relay?.allow ?? []).map((pattern) => globMatcher(pattern, { ignoreCase: true, questionMark: true }));
  }

  async release(record: MessageRecord, to: readonly string[]): Promise<Released> {
    if (!this.relay)
      throw new ReleaseRefused(
        'no-relay',
        "No relay is configured, so nothing can be released: start Pigeonhole with --relay smtp://host:port and --relay-allow '*@your-domain.example' (or PIGEONHOLE_RELAY and PIGEONHOLE_RELAY_ALLOW).",
      );
    const patterns = this.relay.allow;
    const refused = to.filter((address) => !this.allowed.some((m) => m.test(address)));
    if (refused.length > 0) {
      const which = refused.map((a) => `"${a}"`).join(', ');
      const allows = patterns.length === 0 ? 'no --relay-allow pattern is set, so no address is allowed' : `--relay-allow allows ${patterns.join(', ')}`;
      throw new ReleaseRefused('not-allowed', `Not released: ${which} ${refused.length === 1 ? 'is' : 'are'} not allowed (${allows}).`);
    }
    const raw = await this.messages.raw(record);
    const { transport } = this.relay;
    let answer: { accepted: string[]; rejected: string[]; response: string };
    try {
      answer = await transport.send({ from: envelopeSender(record.from), to: [...to] }, raw);
    } catch (error) {
      this.log(`pigeonhole: release of ${record.id} to ${to.join(', ')} through ${transport.name} failed: ${(error as Error).message}`);
      throw new RelayFailed(`The relay ${transport.name} did not take the message: ${(error as Error).message}`);
    }
    this.log(`pigeonhole: released ${record.id} ("${record.subject}") to ${to.join(', ')} through ${transport.name}: ${answer.response}`);
    return { record, to: [...to], relay: transport.name, ...answer };
  }

  close(): void {
    this.relay?.transport.close();
  }
}

/** The envelope sender of a capture's From: the address in angle brackets, or the whole when it is one. */
function envelopeSender(from: string): string {
  const open = from.lastIndexOf('<');
  const close = from.lastIndexOf('>');
  return (open >= 0 && close > open ? from.slice(open + 1, close) : from).trim();
}
