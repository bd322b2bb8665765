import type { RelayTarget } from '../config/option-values.ts';
import type { RelayTransport } from '../domain/messages/release.ts';

type Transporter = import('nodemailer').Transporter;

/** Seconds a release may wait for the relay to connect, greet and answer. */
const TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 };

/**
 * The relay releases go through (`--relay`): nodemailer's SMTP transport, loaded with the first
 * release. smtp:// upgrades with STARTTLS whenever the server offers it (and the certificate
 * must then be valid); smtps:// speaks TLS from the first byte. The raw message is sent as it
 * is, to the envelope given.
 */
export function smtpRelay(target: RelayTarget): RelayTransport {
  let transport: Promise<Transporter> | null = null;
  const host = target.host.includes(':') ? `[${target.host}]` : target.host;
  return {
    name: `${target.secure ? 'smtps' : 'smtp'}://${host}:${target.port}`,
    async send(envelope, raw) {
      transport ??= import('nodemailer').then((nodemailer) =>
        nodemailer.createTransport({ host: target.host, port: target.port, secure: target.secure, auth: target.auth ?? undefined, ...TIMEOUTS }),
      );
      const info = await (await transport).sendMail({ envelope, raw });
      return { accepted: (info.accepted ?? []).map(String), rejected: (info.rejected ?? []).map(String), response: info.response ?? '' };
    },
    close() {
      void transport?.then((t) => t.close());
    },
  };
}
