import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
import type { Caller } from '../domain/directory.ts';
import { emailKey } from '../domain/email-address.ts';
import { DailyLimitReached } from '../domain/errors.ts';
import type { Sandbox } from '../domain/sandbox.ts';
import type { MessageRecord } from '../storage/records.ts';
import { parseMessage } from './parse-message.ts';

export type SmtpStage = 'connect' | 'auth' | 'mail' | 'rcpt' | 'data';

/** The facts a fault rule can match on: the stage, the MAIL FROM address, the RCPT address. */
export interface SmtpFaultQuery {
  stage: SmtpStage;
  sender?: string;
  recipient?: string;
}

/** The reply an injected fault gives instead of the normal one. */
export interface SmtpFaultReply {
  code: number;
  message: string;
}

export type SmtpRejection = 'auth_failed' | 'auth_required' | 'daily_limit' | 'size' | 'fault' | 'error';

/** Optional seams for what other parts of the sandbox add (fault injection, metrics). */
export interface SmtpHooks {
  /** Asked at every stage; a reply refuses the command with it (the toolkit's faults.matchSmtp). */
  fault?(query: SmtpFaultQuery): SmtpFaultReply | null;
  /** A client connected. */
  session?(): void;
  /** A command was refused, and why. */
  rejected?(reason: SmtpRejection): void;
}

export interface SmtpDeps {
  sandbox: Sandbox;
  /** Largest message in bytes; larger ones get 552. */
  maxSize: number;
  /** Refuse MAIL FROM until the client has logged in with an API key. */
  authRequired: boolean;
  logger: { error(message: string, error?: unknown): void };
  hooks?: SmtpHooks;
  /** How long close() lets sessions finish before cutting them (default 5 s). */
  closeTimeoutMs?: number;
}

export interface SmtpCapture {
  listen(port: number, host: string): Promise<number>;
  /** Stops accepting, lets sessions finish, and resolves once every accepted message is stored. */
  close(): Promise<void>;
}

/**
 * SMTP capture: every message goes through the one ingestion path with source `smtp`.
 * AUTH (PLAIN or LOGIN) takes an API key as the password, and that sender's rules apply.
 */
export function createSmtpServer({ sandbox, maxSize, authRequired, logger, hooks = {}, closeTimeoutMs = 5000 }: SmtpDeps): SmtpCapture {
  const { directory, messages } = sandbox;
  const inFlight = new Set<Promise<unknown>>();

  const refuse = (reason: SmtpRejection, code: number, message: string) => {
    hooks.rejected?.(reason);
    return Object.assign(new Error(message), { responseCode: code });
  };
  const fault = (query: SmtpFaultQuery) => {
    const reply = hooks.fault?.(query) ?? null;
    return reply === null ? null : refuse('fault', reply.code, reply.message);
  };
  const callerOf = (session: SMTPServerSession): Caller | null => (typeof session.user === 'string' ? (directory.sender(session.user) ?? null) : null);

  const server = new SMTPServer({
    name: 'pigeonhole',
    banner: 'Pigeonhole SMTP capture, nothing is delivered',
    // The library's built-in certificate has expired; clients would fail the TLS handshake.
    disabledCommands: ['STARTTLS'],
    authMethods: ['PLAIN', 'LOGIN'],
    // Required AUTH is enforced at MAIL FROM below, with a reply that says what to do.
    authOptional: true,
    allowInsecureAuth: true,
    size: maxSize,
    logger: false,
    closeTimeout: closeTimeoutMs,
    onConnect(_session, callback) {
      hooks.session?.();
      callback(fault({ stage: 'connect' }));
    },
    onAuth(auth, _session, callback) {
      const injected = fault({ stage: 'auth' });
      if (injected) return callback(injected);
      const caller = directory.byApiKey(auth.password ?? '');
      if (!caller) return callback(refuse('auth_failed', 535, '5.7.8 Authentication failed: the password must be a valid API key'));
      // The same rule as every /v1 call (api-contract.md §2): the team needs the flows feature.
      if (!caller.team.flowsEnabled) return callback(refuse('auth_failed', 535, "5.7.8 Authentication failed: this API key's team does not have email flows enabled"));
      callback(null, { user: caller.sender.id });
    },
    onMailFrom(address, session, callback) {
      const caller = callerOf(session);
      if (authRequired && !caller) return callback(refuse('auth_required', 530, '5.7.0 Authentication required: AUTH PLAIN or LOGIN with an API key as the password'));
      const limit = caller ? messages.dailyLimitReached(caller) : null;
      if (limit !== null) return callback(dailyLimit(limit));
      callback(fault({ stage: 'mail', sender: address.address }));
    },
    onRcptTo(address, session, callback) {
      callback(fault({ stage: 'rcpt', sender: session.envelope.mailFrom ? session.envelope.mailFrom.address : undefined, recipient: address.address }));
    },
    onData(stream, session, callback) {
      const done = once(callback);
      const work = receive(stream, session).then(
        (record) => done(null, record),
        (error: unknown) => done(error instanceof Error && 'responseCode' in error ? error : unexpected(error)),
      );
      inFlight.add(work);
      void work.finally(() => inFlight.delete(work));
    },
  });
  server.on('error', (error) => logger.error('SMTP server error', error));

  const dailyLimit = (limit: number) => refuse('daily_limit', 451, `4.7.1 Daily limit of ${limit} emails has been reached`);
  const unexpected = (error: unknown) => {
    // A client that went away mid-message is not a failure of ours; nothing was accepted.
    if ((error as NodeJS.ErrnoException).code !== 'ECONNECTION') logger.error('SMTP capture failed', error);
    return refuse('error', 451, '4.3.0 The message could not be stored, try again');
  };

  async function receive(stream: SMTPServerDataStream, session: SMTPServerSession): Promise<MessageRecord> {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of stream) {
      size += (chunk as Buffer).length;
      if (size <= maxSize) chunks.push(chunk as Buffer);
    }
    if (stream.sizeExceeded || size > maxSize) throw refuse('size', 552, `5.3.4 Message exceeds the size limit of ${maxSize} bytes`);
    const mailFrom = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
    const envelope = session.envelope.rcptTo.map((r) => r.address);
    const injected = fault({ stage: 'data', sender: mailFrom, recipient: envelope[0] });
    if (injected) throw injected;
    const raw = Buffer.concat(chunks);
    const parsed = await parseMessage(raw);
    const { to, cc, bcc } = recipientsOf(envelope, parsed.to, parsed.cc);
    try {
      return await messages.ingest({
        source: 'smtp',
        caller: callerOf(session),
        from: parsed.from || mailFrom,
        recipient: envelope[0] ?? to[0] ?? '',
        to,
        cc,
        bcc,
        subject: parsed.subject,
        html: parsed.html,
        text: parsed.text,
        attachments: parsed.attachments,
        // A message that arrives over SMTP is already complete: the account template is an API option.
        useAccountTemplate: false,
        raw,
      });
    } catch (error) {
      if (error instanceof DailyLimitReached) throw dailyLimit(error.limit);
      throw error;
    }
  }

  return {
    listen(port, host) {
      return new Promise((resolve, reject) => {
        server.server.once('error', reject);
        server.listen(port, host, () => {
          server.server.off('error', reject);
          resolve((server.server.address() as AddressInfo).port);
        });
      });
    },
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.allSettled([...inFlight]);
    },
  };
}

/**
 * One capture lists every recipient: To and Cc as the headers give them, and as Bcc every
 * envelope recipient the headers do not name. A message with neither header lists its envelope
 * recipients as To.
 */
export function recipientsOf(envelope: string[], headerTo: string[], headerCc: string[]): { to: string[]; cc: string[]; bcc: string[] } {
  if (headerTo.length === 0 && headerCc.length === 0) return { to: envelope, cc: [], bcc: [] };
  const named = new Set([...headerTo, ...headerCc].map(emailKey));
  return { to: headerTo, cc: headerCc, bcc: envelope.filter((address) => !named.has(emailKey(address))) };
}

function once(callback: (error: Error | null, message?: string) => void) {
  let called = false;
  return (error: Error | null, record?: MessageRecord) => {
    if (called) return;
    called = true;
    if (error) return callback(error);
    const note = record!.blocked ? ' (a recipient is blocked: recorded as failed, nothing delivered)' : '';
    callback(null, `2.0.0 Captured as ${record!.id}${note}`);
  };
}
