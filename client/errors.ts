/**
 * The typed client's errors: one class per answer a test has to tell apart. Every message names
 * the URL that was asked, and says what to change when the answer shows the base URL is wrong.
 */

import type { Capture, ExpectFailure, RefusedSend, RefusedSmtp, WaitFailure } from './wire-types.ts';

/** The request an error answers: its method and full URL. */
export interface AskedRequest {
  method: string;
  url: string;
}

/** A non-2xx answer: the status, the JSON body the server sent, the status text, and the request. */
export class PigeonholeError extends Error {
  /** The request's method and URL, when the client made it (absent for an error made by hand). */
  readonly request: AskedRequest | undefined;

  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly statusText = '',
    request?: AskedRequest,
  ) {
    super(
      `Pigeonhole answered ${status}${request ? ` to ${request.method} ${request.url}` : ''}: ${JSON.stringify(body)}${request ? baseUrlHint(status, request.url) : ''}`,
    );
    this.name = 'PigeonholeError';
    this.request = request;
  }
}

/** A request that got no answer at all (connection refused, unknown host, bad port): names the URL and the cause. */
export class PigeonholeUnreachable extends Error {
  constructor(
    readonly request: AskedRequest,
    failure: unknown,
  ) {
    // The innermost error is the cause: the system's own (its `code` is ECONNREFUSED, ENOTFOUND, ...).
    const cause = innermost(failure);
    super(
      `Cannot reach Pigeonhole at ${request.url} (${request.method}): ${causeText(cause)}. Is the sandbox running, and is this its base URL (http://host:port, the port of its HTTP server)?`,
      {
        cause,
      },
    );
    this.name = 'PigeonholeUnreachable';
  }
}

/**
 * `waitForMessage` gave up: nothing matched within the timeout (408). `refused`: sends that would
 * have matched but were refused; `smtpRefused`: SMTP commands refused that could have carried it.
 */
export class WaitTimeout extends PigeonholeError {
  readonly detail: string;
  readonly refused: RefusedSend[];
  readonly smtpRefused: RefusedSmtp[];

  constructor(body: WaitFailure, request?: AskedRequest) {
    super(408, body, 'Request Timeout', request);
    this.name = 'WaitTimeout';
    this.detail = body.detail;
    this.refused = body.refused ?? [];
    this.smtpRefused = body.smtp_refused ?? [];
    this.message = request ? `${body.detail} (GET ${request.url})` : body.detail;
  }
}

/**
 * An exact expectation that failed (`expect`, `expectNone`): `count` captures matched instead of
 * `expected`; `messages` are the matches (newest first, at most 50), `detail` the server's
 * sentence, `refused` the sends that would have matched but were refused and `smtpRefused` the
 * SMTP commands refused that could have carried one (only when fewer came).
 */
export class ExpectationFailed extends PigeonholeError {
  readonly expected: number;
  readonly count: number;
  readonly messages: Capture[];
  readonly detail: string;
  readonly refused: RefusedSend[];
  readonly smtpRefused: RefusedSmtp[];

  constructor(status: number, body: ExpectFailure, expected: number, request?: AskedRequest) {
    super(status, body, '', request);
    this.name = 'ExpectationFailed';
    this.message = request ? `${body.detail} (GET ${request.url})` : body.detail;
    this.expected = expected;
    this.count = body.count;
    this.messages = body.messages;
    this.detail = body.detail;
    this.refused = body.refused ?? [];
    this.smtpRefused = body.smtp_refused ?? [];
  }
}

/** More captures matched than expected (409): thrown as soon as the extra one is captured. */
export class TooManyMessages extends ExpectationFailed {
  constructor(body: ExpectFailure, expected: number, request?: AskedRequest) {
    super(409, body, expected, request);
    this.name = 'TooManyMessages';
  }
}

/** Fewer captures matched than expected by the end of `within` (408). */
export class TooFewMessages extends ExpectationFailed {
  constructor(body: ExpectFailure, expected: number, request?: AskedRequest) {
    super(408, body, expected, request);
    this.name = 'TooFewMessages';
  }
}

/**
 * What to change when a 404 says the base URL is wrong: one that ends in `/v1` or `/api` (the
 * emulated service's or the sandbox API's prefix) puts every call under it. "" otherwise.
 */
function baseUrlHint(status: number, url: string): string {
  if (status !== 404) return '';
  const { pathname, origin } = new URL(url);
  const segments = pathname.split('/');
  const prefixes = ['v1', 'api'];
  const at = segments.findIndex((segment, i) => i > 0 && prefixes.includes(segment) && prefixes.includes(segments[i + 1] ?? ''));
  if (at < 0) return '';
  const root = `${origin}${segments.slice(0, at).join('/')}`;
  return `. The base URL ${root}/${segments[at]} ends in /${segments[at]}: give the sandbox's root instead (${root}), without /${segments[at]}.`;
}

function innermost(error: unknown): unknown {
  let current = error;
  for (let depth = 0; depth < 5 && (current as { cause?: unknown } | null)?.cause !== undefined; depth++) current = (current as { cause: unknown }).cause;
  return current;
}

/** Why a fetch failed, as short as the system says it: "ECONNREFUSED", "ENOTFOUND", or its message. */
function causeText(cause: unknown): string {
  const { code, message } = (cause ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code === 'string') return code;
  return typeof message === 'string' ? message : String(cause);
}
