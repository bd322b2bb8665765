import { connect } from 'node:net';

export interface SpamdTarget {
  host: string;
  port: number;
}

interface SpamRule {
  name: string;
  score: number;
  description: string;
}

export interface SpamReport {
  /** SpamAssassin's total for the message. */
  score: number;
  /** The score at which spamd calls it spam (its required_score). */
  threshold: number;
  is_spam: boolean;
  /** Every rule that fired, highest score first. */
  rules: SpamRule[];
  spamd: string;
}

/** spamd did not answer, or answered something that is not a report. */
export class SpamdUnavailable extends Error {}

/**
 * Asks a real spamd for its report on a message (the SPAMC/1.5 protocol's REPORT command:
 * the headers carry the score and threshold, the body the table of rules that fired).
 */
export function spamdReport(raw: Buffer, target: SpamdTarget, timeoutMs = 30_000): Promise<SpamReport> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect({ host: target.host, port: target.port });
    const fail = (message: string) => {
      socket.destroy();
      reject(new SpamdUnavailable(message));
    };
    socket.setTimeout(timeoutMs, () => fail(`spamd at ${target.host}:${target.port} did not answer within ${timeoutMs / 1000} s`));
    socket.on('error', (error: NodeJS.ErrnoException) => fail(`spamd at ${target.host}:${target.port}: ${error.code ?? error.message}`));
    socket.on('connect', () => {
      socket.write(`REPORT SPAMC/1.5\r\nContent-length: ${raw.length}\r\n\r\n`);
      socket.end(raw);
    });
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', () => {
      try {
        resolve(parseReport(Buffer.concat(chunks).toString('utf8'), `${target.host}:${target.port}`));
      } catch (error) {
        reject(error);
      }
    });
  });
}

/** Parses spamd's answer to REPORT. */
function parseReport(answer: string, spamd: string): SpamReport {
  const split = answer.indexOf('\r\n\r\n');
  const head = split < 0 ? answer : answer.slice(0, split);
  const body = split < 0 ? '' : answer.slice(split + 4);
  const [status, ...headers] = head.split('\r\n');
  const code = /^SPAMD\/[\d.]+\s+(\d+)\s+(.*)$/.exec(status ?? '');
  if (!code) throw new SpamdUnavailable(`spamd at ${spamd} answered something else: ${JSON.stringify((status ?? '').slice(0, 80))}`);
  if (code[1] !== '0') throw new SpamdUnavailable(`spamd at ${spamd} refused the message: ${code[2]}`);
  const spam = headers.map((h) => /^Spam:\s*(\w+)\s*;\s*(-?[\d.]+)\s*\/\s*(-?[\d.]+)/i.exec(h)).find(Boolean);
  if (!spam) throw new SpamdUnavailable(`spamd at ${spamd} gave no score`);
  const rules: SpamRule[] = [];
  let inTable = false;
  for (const line of body.split(/\r?\n/)) {
    if (/^-{3,}\s+-{3,}/.test(line)) {
      inTable = true;
      continue;
    }
    if (!inTable) continue;
    const rule = /^\s*(-?\d+(?:\.\d+)?)\s+([A-Z0-9_]+)\s+(.*)$/.exec(line);
    if (rule) rules.push({ score: Number(rule[1]), name: rule[2]!, description: rule[3]!.trim() });
    else if (/^\s{2,}\S/.test(line) && rules.length > 0) rules[rules.length - 1]!.description += ` ${line.trim()}`;
    else if (line.trim() === '') inTable = rules.length === 0;
  }
  rules.sort((a, b) => b.score - a.score || a.name.localeCompare(b.name));
  return { score: Number(spam[2]), threshold: Number(spam[3]), is_spam: /^(true|yes)$/i.test(spam[1]!), rules, spamd };
}
