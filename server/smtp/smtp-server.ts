import type { AddressInfo, Socket } from 'node:net';
import { SMTPServer, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
import type { Caller } from '../domain/directory/directory.ts';
import { emailKey } from '../domain/email-address.ts';
import { DailyLimitReached, StorageError } from '../domain/errors.ts';
import type { SmtpStage } from '../domain/patterns/fault-rule.ts';
import type { Sandbox } from '../domain/sandbox.ts';
import type { MessageRecord } from '../domain/entities.ts';
import { ClientLimits, type ClientLimitOptions } from './client-limits.ts';
import { quickSummary } from './mime-summary.ts';
import { readMessageHeaders } from './parse-message.ts';
import { dailyLimitReached } from '../service-texts.ts';

export type SmtpRejection =
  | 'auth_failed'
  | 'auth_required'
  | 'tls_required'
  | 'daily_limit'
  | 'size'
  | 'recipients'
  | 'fault'
  | 'storage'
  | 'error'
  | 'client_sessions'
  | 'reserved_sessions'
  | 'session_lifetime'
  | 'junk_commands'
  | 'auth_attempts';

/** SMTP TLS: a certificate and key (PEM), and how they are used. */
export interface SmtpTls {
  cert: string;
  key: string;
  /** TLS from the first byte (port 465 style) instead of offering STARTTLS. */
  implicit: boolean;
  /** Refuse MAIL FROM (and AUTH) until the session is encrypted. */
  required: boolean;
}

/** Optional seams for metrics. */
export interface SmtpHooks {
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
  /** RCPT TO accepted per message; the next one gets 452 4.5.3 (default 1000, as Postfix). */
  maxRecipients?: number;
  /** Sessions at once; one more is answered 421 and closed (default 100). */
  maxConnections?: number;
  /** Per-client limits (client-limits.ts); the defaults of docs/configuration.md without them. */
  clientLimits?: Partial<Omit<ClientLimitOptions, 'maxConnections'>>;
  /** STARTTLS (or implicit TLS) with this certificate; without it no TLS is offered. */
  tls?: SmtpTls | null;
  logger: { error(message: string, error?: unknown): void };
  hooks?: SmtpHooks;
  /** How long close() lets sessions finish before cutting them (default 5 s). */
  closeTimeoutMs?: number;
}

export interface SmtpCapture {
  listen(port: number, host: string): Promise<number>;
  /** Whether the listener is up (readiness). */
  readonly listening: boolean;
  /** The port it listens on, once listening. */
  readonly port: number | null;
  /** Stops accepting, lets sessions finish, and resolves once every accepted message is stored. */
  close(): Promise<void>;
}

/**
 * SMTP capture: every message goes through the one ingestion path with source `smtp`.
 * AUTH (PLAIN or LOGIN) takes an API key as the password, and that sender's rules apply.
 */
export function createSmtpServer({
  sandbox,
  maxSize,
  authRequired,
  maxRecipients = 1000,
  maxConnections = 100,
  clientLimits = {},
  tls = null,
  logger,
  hooks = {},
  closeTimeoutMs = 5000,
}: SmtpDeps): SmtpCapture {
  const { directory, messages, faults, requestLog, clock } = sandbox;
  const inFlight = new Set<Promise<unknown>>();

  const refuse = (reason: SmtpRejection, code: number, message: string) => {
    hooks.rejected?.(reason);
    return Object.assign(new Error(message), { responseCode: code, rejection: reason });
  };
  /**
   * Fault injection (sandbox API /api/faults, target smtp): a rule matched on the stage, the
   * logged-in sender and the recipient either refuses the command with its reply, holds it for
   * a while, or drops the connection with no reply at all. Resolves to the refusal, or null to
   * go on; a dropped session never goes on.
   */
  const fault = async (stage: SmtpStage, session: SMTPServerSession, recipient?: string): Promise<Error | null> => {
    const fired = faults.matchSmtp({ stage, sender: typeof session.user === 'string' ? session.user : null, recipient: recipient ?? null });
    if (fired === null) return null;
    if (fired.type === 'smtp_reply') return refuse('fault', fired.code, fired.message);
    // A rate limit closes the session as a throttling server does, saying when to come back.
    if (fired.type === 'rate_limit')
      return refuse('fault', 421, `4.7.0 Rate limit exceeded, try again in ${fired.retryAfterSeconds} second${fired.retryAfterSeconds === 1 ? '' : 's'}`);
    if (fired.type === 'delay') {
      await new Promise((resolve) => setTimeout(resolve, fired.ms));
      return null;
    }
    if (fired.type === 'drop') {
      // Cut the socket with no reply; the refusal below is never written (the socket is gone) but
      // lets the library finish the command, so nothing waits on a session that no longer exists.
      connectionOf(session)?._socket.destroy();
      return refuse('fault', 421, '4.4.2 Connection dropped by an injected fault');
    }
    // An HTTP status rule cannot match an SMTP stage (the rule's target says which it is for).
    return null;
  };
  /** Runs the fault check, then the command's own handling. */
  const afterFault = (
    stage: SmtpStage,
    session: SMTPServerSession,
    recipient: string | undefined,
    callback: (error?: Error | null) => void,
    then: () => void,
  ) => {
    fault(stage, session, recipient).then(
      (injected) => (injected ? callback(injected) : then()),
      (error: unknown) => callback(unexpected(error)),
    );
  };
  const limits = new ClientLimits(
    () => server.connections,
    { perClient: 10, reserved: 5, lifetimeMs: 600_000, junkCommands: 100, authFailures: 3, ...clientLimits, maxConnections },
    (limit) => hooks.rejected?.(limit),
    (message) => logger.error(message),
  );
  /**
   * The refusal a command's callback is given (if it is one), noted for a failed wait to name
   * (docs/testing.md, "When the mail never came"), with what the session carried by then.
   * `address`: the MAIL FROM or RCPT TO address of the command refused.
   */
  const noted = <E extends Error | null | undefined>(session: SMTPServerSession, stage: SmtpStage, error: E, address?: string): E => {
    const refusal = error as (Error & { responseCode?: unknown; rejection?: SmtpRejection }) | null | undefined;
    if (!refusal || typeof refusal.responseCode !== 'number' || refusal.responseCode < 400) return error;
    const caller = callerOf(session);
    // Recipients exist only from RCPT TO on (the refused one counts); a new MAIL FROM starts a new envelope.
    const recipients = stage === 'rcpt' || stage === 'data' ? session.envelope.rcptTo.map((r) => r.address) : [];
    if (stage === 'rcpt' && address !== undefined && !recipients.includes(address)) recipients.push(address);
    requestLog.noteSmtpRefusal({
      at: clock.now().toISOString(),
      code: refusal.responseCode,
      reply: refusal.message,
      rejection: refusal.rejection ?? null,
      stage,
      sender: caller?.sender.id ?? null,
      team: caller?.team.id ?? null,
      mailFrom: stage === 'mail' ? (address ?? null) : session.envelope.mailFrom ? session.envelope.mailFrom.address : null,
      recipients,
    });
    return error;
  };
  const connectionOf = (session: SMTPServerSession) => [...server.connections].find((connection) => connection.id === session.id);
  const callerOf = (session: SMTPServerSession): Caller | null => (typeof session.user === 'string' ? (directory.sender(session.user) ?? null) : null);

  const server = new SMTPServer({
    name: 'pigeonhole',
    banner: 'Pigeonhole SMTP capture, nothing is delivered',
    // Without a certificate of ours no STARTTLS is offered: the library's built-in one has
    // expired, and clients that upgrade whenever it is offered would fail the handshake.
    ...(tls ? { cert: tls.cert, key: tls.key, secure: tls.implicit } : { disabledCommands: ['STARTTLS'] }),
    authMethods: ['PLAIN', 'LOGIN'],
    // Required AUTH is enforced at MAIL FROM below, with a reply that says what to do.
    authOptional: true,
    // With TLS required, AUTH (an API key) waits for STARTTLS too: 538 before it.
    allowInsecureAuth: !tls?.required,
    size: maxSize,
    // One session more than this is answered `421 pigeonhole Too many connected clients, try
    // again in a moment` and closed (RFC 5321 §3.8: a 421 names the server and closes).
    maxClients: maxConnections,
    logger: false,
    closeTimeout: closeTimeoutMs,
    // A reverse DNS lookup per connection can hold a client for seconds (Docker's resolver);
    // the client's address is shown instead.
    disableReverseLookup: true,
    onConnect(session, callback) {
      hooks.session?.();
      const refused = limits.admit(session);
      if (refused) return callback(noted(session, 'connect', refused));
      const connection = connectionOf(session);
      if (connection) limits.watch(session, connection as unknown as Parameters<ClientLimits['watch']>[1]);
      afterFault(
        'connect',
        session,
        undefined,
        (error) => callback(noted(session, 'connect', error)),
        () => callback(),
      );
    },
    onClose(session) {
      limits.closed(session);
    },
    onAuth(auth, session, callback) {
      afterFault(
        'auth',
        session,
        undefined,
        (error) => callback(noted(session, 'auth', error)),
        () =>
          authenticate(auth.password ?? '', (error, response) => callback(noted(session, 'auth', error && (limits.authFailed(session) ?? error)), response)),
      );
    },
    onMailFrom(address, session, reply) {
      const callback = (error?: Error | null) => reply(noted(session, 'mail', error, address.address));
      if (tls?.required && !session.secure) return callback(refuse('tls_required', 530, '5.7.0 Must issue a STARTTLS command first'));
      const caller = callerOf(session);
      if (authRequired && !caller)
        return callback(refuse('auth_required', 530, '5.7.0 Authentication required: AUTH PLAIN or LOGIN with an API key as the password'));
      const limit = caller ? messages.dailyLimitReached(caller) : null;
      if (limit !== null) return callback(dailyLimit(limit));
      afterFault('mail', session, undefined, callback, () => callback());
    },
    onRcptTo(address, session, reply) {
      const callback = (error?: Error | null) => reply(noted(session, 'rcpt', error, address.address));
      // RFC 5321 §4.5.3.1.10: a server may refuse recipients beyond its limit with 452 and the
      // client sends the rest in another transaction. A repeated address replaces its first
      // RCPT TO (the library keeps one entry per address), so it never counts twice.
      const listed = session.envelope.rcptTo;
      if (listed.length >= maxRecipients && !listed.some((r) => r.address.toLowerCase() === address.address.toLowerCase()))
        return callback(refuse('recipients', 452, '4.5.3 Too many recipients'));
      afterFault('rcpt', session, address.address, callback, () => callback());
    },
    onData(stream, session, callback) {
      const done = once(callback);
      const work = receive(stream, session).then(
        (record) => {
          limits.messageAccepted(session);
          done(null, record);
        },
        (error: unknown) => done(noted(session, 'data', error instanceof Error && 'responseCode' in error ? error : unexpected(error))),
      );
      inFlight.add(work);
      void work.finally(() => inFlight.delete(work));
    },
  });
  // A pipelining client sends MAIL FROM, RCPT TO and DATA in one packet, and the library writes
  // each reply on its own: three system calls (and three wake-ups of the client) where one does.
  // The replies to what arrived in one turn of the event loop leave together at its end.
  server.server.on('connection', (socket: Socket) => {
    let corked = false;
    socket.prependListener('data', () => {
      if (corked) return;
      corked = true;
      socket.cork();
      setImmediate(() => {
        corked = false;
        socket.uncork();
      });
    });
  });
  server.on('error', (error: Error & { code?: string; report?: boolean }) => {
    // A client that gives up on the TLS handshake (say, it does not trust the certificate) is
    // that client's failure, not the server's.
    if (error.report === false || error.code === 'TLSError') return;
    logger.error('SMTP server error', error);
  });

  function authenticate(password: string, callback: (error: Error | null, response?: { user: string }) => void): void {
    const caller = directory.byApiKey(password);
    if (!caller) {
      callback(refuse('auth_failed', 535, '5.7.8 Authentication failed: the password must be a valid API key'));
      return;
    }
    // The same rule as every /v1 call (docs/api-contract.md §2): the team needs the flows feature.
    if (!caller.team.flowsEnabled) {
      callback(refuse('auth_failed', 535, "5.7.8 Authentication failed: this API key's team does not have email flows enabled"));
      return;
    }
    callback(null, { user: caller.sender.id });
  }

  const dailyLimit = (limit: number) => refuse('daily_limit', 451, `4.7.1 ${dailyLimitReached(limit)}`);
  const unexpected = (error: unknown) => {
    // Nothing was stored (the disk is full, read-only, ...): a temporary failure the client retries.
    if (error instanceof StorageError) return refuse('storage', 452, `4.3.1 Not stored: ${error.reason}, try again later`);
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
    const injected = await fault('data', session, envelope[0]);
    if (injected) throw injected;
    const raw = Buffer.concat(chunks);
    // The headers say everything the sender's rules need. What the parts are (bodies, snippet,
    // attachments) is read in one pass for everyday mail, so the capture is written once,
    // complete; any other message is stored first and taken apart by mailparser right after
    // (before anything shows or reads it), so a client is answered as soon as it is on disk.
    const parsed = readMessageHeaders(raw);
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
        html: null,
        text: null,
        attachments: [],
        // A message that arrives over SMTP is already complete: the account template is an API option.
        useAccountTemplate: false,
        raw,
        partsSummary: quickSummary(raw) ?? undefined,
        client: { address: session.remoteAddress, helo: typeof session.hostNameAppearsAs === 'string' ? session.hostNameAppearsAs : '' },
      });
    } catch (error) {
      if (error instanceof DailyLimitReached) throw dailyLimit(error.limit);
      throw error;
    }
  }

  return {
    get listening() {
      return server.server.listening;
    },
    get port() {
      return server.server.listening ? (server.server.address() as AddressInfo).port : null;
    },
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
function recipientsOf(envelope: string[], headerTo: string[], headerCc: string[]): { to: string[]; cc: string[]; bcc: string[] } {
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
