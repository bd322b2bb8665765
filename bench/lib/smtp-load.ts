import { connect, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { FIXTURE_FROM, FIXTURE_MESSAGE, FIXTURE_TO } from './smtp-message.ts';

/** No reply for this long fails the connection. */
const REPLY_TIMEOUT_MS = 30_000;

export interface SmtpLoadPlan {
  host?: string;
  port: number;
  /** Parallel connections, each sending one message after the other. */
  connections: number;
  /** No new message is started after this many seconds; messages in flight finish. */
  seconds: number;
  /** Stops the run early (Ctrl-C). */
  signal?: AbortSignal;
  /** The message (CRLF, without the final `.` line); the fixture by default. */
  message?: Buffer;
  from?: string;
  to?: string;
}

export interface SmtpLoadResult {
  /** Messages answered 250 after the data. */
  accepted: number;
  /** Messages refused at any step (MAIL, RCPT, DATA or after the data). */
  refused: number;
  /** Seconds from the first connection until the last message in flight was answered. */
  seconds: number;
  /** accepted / seconds. */
  rate: number;
  /** How many connections had the server advertise PIPELINING. */
  pipelined: number;
  /** Refusals by first reply line, e.g. `452 4.3.1 Not stored: ...` → count. */
  refusals: Map<string, number>;
  /** Connections that failed (closed, timed out, unexpected greeting) and why. */
  lost: string[];
}

/**
 * A raw SMTP load generator on node:net: `connections` sessions, each saying EHLO once and then
 * sending the same message again and again until the time is up. Where the server advertises
 * PIPELINING, MAIL, RCPT and DATA go in one write (RFC 2920) and the message follows the 354;
 * otherwise each command waits for its reply. A message counts as accepted only when the server
 * answers 250 after the data; any other answer is counted as a refusal and the transaction is
 * reset (RSET) before the next message.
 */
export async function runSmtpLoad(plan: SmtpLoadPlan): Promise<SmtpLoadResult> {
  const result: SmtpLoadResult = { accepted: 0, refused: 0, seconds: 0, rate: 0, pipelined: 0, refusals: new Map(), lost: [] };
  const data = Buffer.concat([plan.message ?? FIXTURE_MESSAGE, Buffer.from('.\r\n')]);
  const envelope = `MAIL FROM:<${plan.from ?? FIXTURE_FROM}>\r\nRCPT TO:<${plan.to ?? FIXTURE_TO}>\r\nDATA\r\n`;
  const [mail, rcpt] = envelope.split('\r\n').map((line) => `${line}\r\n`) as [string, string];
  const started = performance.now();
  const deadline = started + plan.seconds * 1000;
  const more = () => performance.now() < deadline && !plan.signal?.aborted;

  const refuse = (reply: Reply) => {
    result.refused++;
    const key = reply.lines[0]!.slice(0, 120);
    result.refusals.set(key, (result.refusals.get(key) ?? 0) + 1);
  };

  const session = async () => {
    const smtp = await SmtpSession.open(plan.host ?? '127.0.0.1', plan.port);
    try {
      const greeting = await smtp.reply();
      if (greeting.code !== 220) throw new Error(`greeting: ${greeting.lines[0]}`);
      const ehlo = await smtp.command('EHLO bench.localhost\r\n');
      if (ehlo.code !== 250) throw new Error(`EHLO: ${ehlo.lines[0]}`);
      const pipelining = ehlo.lines.some((line) => /^250[- ]PIPELINING\b/i.test(line));
      if (pipelining) result.pipelined++;
      while (more()) {
        let refusal: Reply | null = null;
        let ready: Reply;
        if (pipelining) {
          smtp.write(envelope);
          const replies = [await smtp.reply(), await smtp.reply(), await smtp.reply()];
          refusal = replies.slice(0, 2).find((r) => r.code !== 250) ?? null;
          ready = replies[2]!;
        } else {
          for (const command of [mail, rcpt]) {
            const reply = await smtp.command(command);
            if (reply.code !== 250) {
              refusal = reply;
              break;
            }
          }
          ready = refusal ? refusal : await smtp.command('DATA\r\n');
        }
        // The message is sent whenever the server asked for it (354), so the session stays in step.
        if (ready.code === 354) {
          const done = await smtp.command(data);
          refusal ??= done.code === 250 ? null : done;
        } else {
          refusal ??= ready;
        }
        if (refusal === null) {
          result.accepted++;
          continue;
        }
        refuse(refusal);
        // A 421 means the server is closing the session: the next reply would never come.
        if (refusal.code === 421) throw new Error(`server closed the session: ${refusal.lines[0]}`);
        await smtp.command('RSET\r\n');
      }
      await smtp.command('QUIT\r\n').catch(() => undefined);
    } finally {
      smtp.close();
    }
  };

  await Promise.all(
    Array.from({ length: plan.connections }, () =>
      session().catch((error: unknown) => {
        result.lost.push((error as Error).message);
      }),
    ),
  );
  result.seconds = (performance.now() - started) / 1000;
  result.rate = result.accepted / result.seconds;
  return result;
}

interface Reply {
  code: number;
  lines: string[];
}

/** One SMTP connection: writes commands and hands out the replies in order. */
class SmtpSession {
  private buffer = '';
  private lines: string[] = [];
  private readonly ready: Reply[] = [];
  private readonly waiting: { resolve: (reply: Reply) => void; reject: (error: Error) => void }[] = [];
  private failure: Error | null = null;
  /** When the last reply arrived; one watchdog per session instead of a timer per reply. */
  private lastReply = performance.now();
  private readonly watchdog: NodeJS.Timeout;

  private constructor(private readonly socket: Socket) {
    socket.setNoDelay(true);
    this.watchdog = setInterval(() => {
      if (this.waiting.length > 0 && performance.now() - this.lastReply > REPLY_TIMEOUT_MS) this.fail(new Error(`no reply in ${REPLY_TIMEOUT_MS / 1000} s`));
    }, 1000);
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    socket.on('error', (error) => this.fail(error));
    socket.on('close', () => this.fail(new Error('connection closed by the server')));
  }

  static open(host: string, port: number): Promise<SmtpSession> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host, port });
      socket.once('connect', () => {
        socket.off('error', reject);
        resolve(new SmtpSession(socket));
      });
      socket.once('error', reject);
    });
  }

  write(data: string | Buffer): void {
    this.socket.write(data);
  }

  /** Writes one command (or the message) and waits for its reply. */
  command(data: string | Buffer): Promise<Reply> {
    this.write(data);
    return this.reply();
  }

  /** The next reply the server sends (or has sent). */
  reply(): Promise<Reply> {
    const next = this.ready.shift();
    if (next) return Promise.resolve(next);
    if (this.failure) return Promise.reject(this.failure);
    if (this.waiting.length === 0) this.lastReply = performance.now();
    return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
  }

  close(): void {
    clearInterval(this.watchdog);
    this.socket.destroy();
  }

  private receive(chunk: Buffer): void {
    this.buffer += chunk.toString('latin1');
    let end: number;
    while ((end = this.buffer.indexOf('\r\n')) >= 0) {
      const line = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      this.lines.push(line);
      // "250-..." continues a reply, "250 ..." (or a bare code) ends it.
      if (line.length > 3 && line[3] === '-') continue;
      const reply: Reply = { code: Number(line.slice(0, 3)), lines: this.lines };
      this.lines = [];
      this.lastReply = performance.now();
      const waiter = this.waiting.shift();
      if (waiter) {
        waiter.resolve(reply);
      } else {
        this.ready.push(reply);
      }
    }
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const waiter of this.waiting.splice(0)) waiter.reject(this.failure);
    this.close();
  }
}

/** The refusals of a run as one line each, most frequent first. */
export function refusalLines(result: SmtpLoadResult): string[] {
  return [...result.refusals].sort((a, b) => b[1] - a[1]).map(([reply, count]) => `${count} x ${reply}`);
}
