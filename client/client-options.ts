import type { DeliveryStatus, Frame, Source } from './wire-types.ts';

/** What the typed client's calls take: filters, inputs and options (pigeonhole-client.ts re-exports each). */

/** `expectNone`'s `within` when none is given (ms): the same in the Python client, the MCP tool and the API (docs/testing.md). */
export const EXPECT_NONE_WITHIN_MS = 1000;

export interface MessageFilter {
  /** Any address on the capture (original recipient, To, Cc, Bcc). */
  recipient?: string;
  /** Case-insensitive substring of the subject. */
  subject?: string;
  q?: string;
  /** Sender id or API key. */
  sender?: string;
  team?: string;
  source?: Source;
  status?: DeliveryStatus;
  /** Only captures created at or after this time. */
  since?: Date | string;
  /** Only captures newer than the capture with this id. */
  after?: string;
  /** Only captures of this namespace (the `+tag` of an address; any case). */
  namespace?: string;
}

/** The inbox list's filters (GET /api/messages): the capture filters and the inbox's own. */
export interface ListFilter extends MessageFilter {
  blocked?: boolean;
  redirected?: boolean;
  read?: boolean;
}

export interface RequestLogFilter {
  method?: string;
  path?: string;
  status?: number | string;
  sender?: string;
  team?: string;
  fault?: boolean;
  limit?: number;
  offset?: number;
}

/** The data of each frame type. */
export type FrameData<T extends Frame['type']> = Frame extends infer F
  ? F extends { type: infer U; data: infer D }
    ? T extends U
      ? D
      : never
    : never
  : never;

// ---------------------------------------------------------------------------------------------
// The client
// ---------------------------------------------------------------------------------------------

export interface SendEmailInput {
  apiKey: string;
  recipient: string;
  subject: string;
  body: string;
  plain_body?: string;
  first_name?: string;
  last_name?: string;
  flags?: string[];
  use_account_template?: boolean;
  encryptionKey?: string;
}

/** What expect takes beside the filter: `within` (ms, default 10000; 1000 for `expectNone`) and `settle` (ms, default 250). */
export interface ExpectOptions {
  within?: number;
  settle?: number;
  signal?: AbortSignal;
}

/** What every call takes beside its own options: `signal` aborts it (the fetch rejects with an AbortError). */
export interface CallOptions {
  signal?: AbortSignal;
}

export interface ClientOptions {
  /** Default http://localhost:8025. A `user:password@` in it is used as `auth`. */
  baseUrl?: string;
  /**
   * The login of a sandbox started with `--auth` or `--auth-file`: `"user:password"` (the form
   * of `PIGEONHOLE_AUTH`) or `{user, password}`. Sent as HTTP Basic with every sandbox API call;
   * `sendEmail` uses its API key instead (/v1 has no login).
   */
  auth?: string | { user: string; password: string };
  fetch?: typeof fetch;
}
