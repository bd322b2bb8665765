import type { SMTPServerSession } from 'smtp-server';

/** What one client may hold and do (docs/security.md, "SMTP clients"). */
export interface ClientLimitOptions {
  /** Sessions at once in all (smtp-server's maxClients). */
  maxConnections: number;
  /** Sessions at once from one client address. */
  perClient: number;
  /** The last sessions of maxConnections, taken only by an address that holds none. */
  reserved: number;
  /** How long a session may last; then it is closed between messages. */
  lifetimeMs: number;
  /** NOOP, RSET, HELP and VRFY since the last message (or the start); the next one closes the session. */
  junkCommands: number;
  /** Failed AUTH attempts in one session; the last is answered 421 and the session closed. */
  authFailures: number;
}

/** The part of smtp-server's connection used here (its own, undocumented API: tested in test/smtp/smtp-clients.test.ts). */
interface Connection {
  id: string;
  remoteAddress: string;
  send(code: number, message: string, context?: false): void;
  close(): void;
  _onCommand(command: Buffer, callback?: () => void): unknown;
  _dataStream?: unknown;
  _handlerPending?: boolean;
  _nextHandler?: unknown;
}

type Limit = 'client_sessions' | 'reserved_sessions' | 'session_lifetime' | 'junk_commands' | 'auth_attempts';

interface Session {
  address: string;
  connection: Connection | null;
  junk: number;
  authFailures: number;
  timer: NodeJS.Timeout | null;
  /** The lifetime ran out during a message: closed at the next command. */
  expired: boolean;
}

const JUNK = new Set(['NOOP', 'RSET', 'HELP', 'VRFY']);

/**
 * Per-client SMTP limits, as Postfix's smtpd_client_connection_count_limit and
 * smtpd_junk_command_limit: one address cannot take every session, a session cannot be kept
 * open forever with commands that send nothing, and a password cannot be guessed on one
 * session. Each refusal is a 421 that closes the session (RFC 5321 §3.8), counted by `refused`
 * and logged once per limit and address a minute.
 */
export class ClientLimits {
  private readonly sessions = new Map<string, Session>();
  private readonly logged = new Map<string, number>();
  private readonly reserved: number;

  /**
   * `live`: the library's open connections. Sessions are counted from it, not from onClose
   * (which comes a turn after the socket closes), so a place is free the moment its session is.
   */
  constructor(
    private readonly live: () => Iterable<{ id: string; remoteAddress: string }>,
    private readonly options: ClientLimitOptions,
    private readonly refused: (limit: Limit) => void,
    private readonly log: (message: string) => void,
  ) {
    // The reserve never cuts one client below its own allowance (a small --smtp-max-connections).
    this.reserved = Math.min(options.reserved, Math.max(0, options.maxConnections - options.perClient));
  }

  /** At onConnect: null to let the session in, or the 421 that refuses it. */
  admit(session: SMTPServerSession): Error | null {
    const address = session.remoteAddress;
    let held = 0;
    let open = 0;
    for (const connection of this.live()) {
      if (!this.sessions.has(connection.id)) continue;
      open++;
      if (connection.remoteAddress === address) held++;
    }
    if (held >= this.options.perClient)
      return this.refuse('client_sessions', address, `4.7.0 Too many sessions from ${address} (${this.options.perClient} at once), try again later`);
    if (held > 0 && open >= this.options.maxConnections - this.reserved)
      return this.refuse(
        'reserved_sessions',
        address,
        `4.7.0 Too many connected clients: the last ${this.reserved} sessions are kept for other clients, try again later`,
      );
    this.sessions.set(session.id, { address, connection: null, junk: 0, authFailures: 0, timer: null, expired: false });
    return null;
  }

  /** Once admitted: counts the session's commands and starts its lifetime. */
  watch(session: SMTPServerSession, connection: Connection): void {
    const state = this.sessions.get(session.id);
    if (!state) return;
    state.connection = connection;
    const run = connection._onCommand.bind(connection);
    connection._onCommand = (command, callback) => {
      if (state.expired) return this.end(state, 'session_lifetime', this.lifetimeReply());
      if (!connection._nextHandler && JUNK.has(commandName(command)) && ++state.junk > this.options.junkCommands)
        return this.end(state, 'junk_commands', `4.7.0 Too many commands without a message (${this.options.junkCommands} NOOP, RSET, HELP or VRFY), closing`);
      return run(command, callback);
    };
    state.timer = setTimeout(() => {
      // A message being received (or a command being answered) finishes first; the session
      // ends at its next command.
      if (connection._dataStream || connection._handlerPending) state.expired = true;
      else this.end(state, 'session_lifetime', this.lifetimeReply());
    }, this.options.lifetimeMs);
    state.timer.unref();
  }

  /** A message was accepted: commands that send nothing count from here again. */
  messageAccepted(session: SMTPServerSession): void {
    const state = this.sessions.get(session.id);
    if (state) state.junk = 0;
  }

  /** A failed AUTH: null to answer it as usual (535), or the 421 that ends the session. */
  authFailed(session: SMTPServerSession): Error | null {
    const state = this.sessions.get(session.id);
    if (!state || ++state.authFailures < this.options.authFailures) return null;
    const error = this.refuse('auth_attempts', state.address, `4.7.0 Too many failed AUTH attempts (${this.options.authFailures}), closing`);
    // The library writes the reply; the session closes right after it.
    setImmediate(() => state.connection?.close());
    return error;
  }

  /** At onClose: the session's place is free again. */
  closed(session: SMTPServerSession): void {
    const state = this.sessions.get(session.id);
    if (!state) return;
    this.sessions.delete(session.id);
    if (state.timer) clearTimeout(state.timer);
  }

  private lifetimeReply(): string {
    const ms = this.options.lifetimeMs;
    return `4.4.2 Session open longer than ${ms < 1000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`}, closing: connect again to go on`;
  }

  private end(state: Session, limit: Limit, message: string): void {
    this.refuse(limit, state.address, message);
    state.connection?.send(421, message, false);
    state.connection?.close();
  }

  private refuse(limit: Limit, address: string, message: string): Error {
    this.refused(limit);
    const key = `${limit} ${address}`;
    const now = Date.now();
    if ((this.logged.get(key) ?? -Infinity) < now - 60_000) {
      if (this.logged.size > 1000) this.logged.clear();
      this.logged.set(key, now);
      this.log(`SMTP ${limit.replace('_', ' ')} limit: ${address} refused with "421 ${message}" (logged once a minute per address)`);
    }
    return Object.assign(new Error(message), { responseCode: 421 });
  }
}

/** The command word of a line (`NOOP`, `RSET`, ...), upper case. */
function commandName(command: Buffer): string {
  const line = command.toString('latin1', 0, Math.min(command.length, 8));
  const space = line.indexOf(' ');
  return (space < 0 ? line : line.slice(0, space)).trim().toUpperCase();
}
