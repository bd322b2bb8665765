/**
 * A typed client for Pigeonhole's sandbox API (and a sendEmail helper for /v1), for another
 * project's tests. Plain fetch, no dependencies, ESM; Node 18+ or a browser.
 *
 *   import { PigeonholeClient } from 'pigeonhole/client';
 *   const ph = new PigeonholeClient({ baseUrl: 'http://localhost:8025' });
 *   // a sandbox started with --auth: new PigeonholeClient({ baseUrl, auth: process.env.PIGEONHOLE_AUTH })
 *   await ph.reset();
 *   const mail = await ph.waitForMessage({ recipient: 'user@example.com', timeout: 5000 });
 *   mail.codes[0]; mail.links.find((l) => l.text === 'Verify')?.href;
 */

// ---------------------------------------------------------------------------------------------
// Wire types: the JSON of the sandbox API (/api) and of the live push (/api/events), snake_case
// as sent, generated from the server's zod schemas into client/wire-types.ts (`npm run generate`;
// never edit that file). The one definition: the server builds its answers against them
// (`satisfies`), the inbox UI imports them from here, and the three files of client/ stay a client
// you can copy.
// ---------------------------------------------------------------------------------------------

import type {
  BlockEntry,
  Capture,
  CheckPlatform,
  CheckReport,
  ClientView,
  ClientViewId,
  Clock,
  ExpectFailure,
  ExpectResult,
  Extracted,
  FaultRule,
  FaultRuleInput,
  ForcedStatus,
  LinkCheck,
  LinkCheckResult,
  LinkEvent,
  MessageDetail,
  MessageList,
  MessageSummary,
  RecipientList,
  Released,
  RenderMode,
  RequestLogList,
  ResetResult,
  Rewrap,
  SearchPage,
  Sender,
  SubscriptionList,
  SubscriptionStatus,
  TemplateFile,
  TemplateFileList,
  TemplateVersion,
  TemplateVersions,
  WaitFailure,
} from './wire-types.ts';
import type { CallOptions, ExpectOptions, ListFilter, MessageFilter, RequestLogFilter, SendEmailInput } from './client-options.ts';
import { EXPECT_NONE_WITHIN_MS } from './client-options.ts';
import { PigeonholeError, TooFewMessages, TooManyMessages, WaitTimeout } from './errors.ts';
import { jsonLines, Transport } from './transport.ts';

export { type AskedRequest, ExpectationFailed, PigeonholeError, PigeonholeUnreachable, TooFewMessages, TooManyMessages, WaitTimeout } from './errors.ts';
export { CLIENT_VIEW_IDS, RENDER_MODES, DELIVERY_STATUSES, FORCED_STATUSES, SOURCES, SUBSCRIPTION_STATUSES } from './wire-types.ts';
export type * from './wire-types.ts';
export {
  type CallOptions,
  type ClientOptions,
  EXPECT_NONE_WITHIN_MS,
  type ExpectOptions,
  type FrameData,
  type ListFilter,
  type MessageFilter,
  type RequestLogFilter,
  type SendEmailInput,
} from './client-options.ts';

export class PigeonholeClient extends Transport {
  /**
   * Resolves with the newest capture matching the filter, waiting server-side up to `timeout` ms
   * (default 10000); a timeout throws WaitTimeout (a PigeonholeError 408), whose `refused` names
   * sends that would have matched but were refused (a daily limit, a wrong key). `signal` gives up the wait.
   */
  async waitForMessage(filter: MessageFilter & { timeout?: number; signal?: AbortSignal } = {}): Promise<Capture> {
    const { signal, ...query } = filter;
    try {
      return await this.call<Capture>('GET', '/api/messages/wait', query, undefined, signal);
    } catch (error) {
      if (error instanceof PigeonholeError && error.status === 408 && isWaitFailure(error.body)) throw new WaitTimeout(error.body, error.request);
      throw error;
    }
  }

  /**
   * Resolves once exactly `count` captures match the filter (stored or arriving within `within`
   * ms) and no further one arrives within `settle` ms; throws TooManyMessages as soon as more
   * match, TooFewMessages when fewer did by the end. Scope it (`namespace`, `after`, `since`) so
   * only this test's mail counts.
   */
  async expect(filter: MessageFilter & ExpectOptions & { count: number }): Promise<ExpectResult> {
    const { signal, count, ...query } = filter;
    try {
      return await this.call<ExpectResult>('GET', '/api/messages/expect', { ...query, count }, undefined, signal);
    } catch (error) {
      if (error instanceof PigeonholeError && isExpectFailure(error.body)) {
        if (error.status === 409) throw new TooManyMessages(error.body, count, error.request);
        if (error.status === 408) throw new TooFewMessages(error.body, count, error.request);
      }
      throw error;
    }
  }

  /**
   * Resolves when no capture matching the filter is stored or arrives within `within` ms (default
   * EXPECT_NONE_WITHIN_MS, 1000: a passing check waits all of it); else throws TooManyMessages at once.
   */
  async expectNone(filter: MessageFilter & Omit<ExpectOptions, 'settle'> = {}): Promise<void> {
    await this.expect({ within: EXPECT_NONE_WITHIN_MS, ...filter, count: 0 });
  }

  /** The newest capture matching the filter, or null. */
  async latest(filter: MessageFilter = {}): Promise<Capture | null> {
    try {
      return await this.call<Capture>('GET', '/api/messages/latest', { ...filter });
    } catch (error) {
      if (error instanceof PigeonholeError && error.status === 404) return null;
      throw error;
    }
  }

  search(filter: MessageFilter & { limit?: number; offset?: number } = {}): Promise<SearchPage> {
    return this.call('GET', '/api/messages/search', { ...filter });
  }

  /** The inbox list, newest first (summaries only; search adds links and codes). */
  list(filter: ListFilter & { limit?: number; offset?: number } & CallOptions = {}): Promise<MessageList> {
    const { signal, ...query } = filter;
    return this.call('GET', '/api/messages', query, undefined, signal);
  }

  /** One capture whole (bodies, text view, links and codes, headers, attachments, flags, ...). */
  get(id: string, options: CallOptions = {}): Promise<MessageDetail> {
    return this.call('GET', `/api/messages/${encodeURIComponent(id)}`, undefined, undefined, options.signal);
  }

  /** The capture's .eml, as stored. */
  raw(id: string, options: CallOptions = {}): Promise<string> {
    return this.text(`/api/messages/${encodeURIComponent(id)}/raw`, options.signal);
  }

  /** The HTML body as the inbox's preview frame gets it (cid: rewritten); `remote` allows remote images, styles and fonts. */
  html(id: string, options: { remote?: boolean } & CallOptions = {}): Promise<string> {
    return this.text(`/api/messages/${encodeURIComponent(id)}/html${options.remote ? '?remote=1' : ''}`, options.signal);
  }

  /** The bytes of a capture's attachment, by its position in `attachments`. */
  async attachment(id: string, index: number, options: CallOptions = {}): Promise<Uint8Array> {
    const url = `${this.baseUrl}/api/messages/${encodeURIComponent(id)}/attachments/${index}`;
    const response = await this.send(url, this.init('GET', undefined, options.signal, '*/*'));
    if (!response.ok) return this.parse(response, { method: 'GET', url });
    return new Uint8Array(await response.arrayBuffer());
  }

  /** Marks a capture read or unread (as opening it in the inbox does). */
  setRead(id: string, read: boolean, options: CallOptions = {}): Promise<MessageSummary> {
    return this.call('PATCH', `/api/messages/${encodeURIComponent(id)}`, undefined, { read }, options.signal);
  }

  /** Deletes one capture and its files. */
  async remove(id: string, options: CallOptions = {}): Promise<void> {
    await this.call('DELETE', `/api/messages/${encodeURIComponent(id)}`, undefined, undefined, options.signal);
  }

  /** Deletes every capture and its files (`reset` also clears the rest of the sandbox's state). */
  async clear(options: CallOptions = {}): Promise<void> {
    await this.call('DELETE', '/api/messages', undefined, undefined, options.signal);
  }

  extract(id: string): Promise<Extracted> {
    return this.call('GET', `/api/messages/${encodeURIComponent(id)}/extract`);
  }

  setStatus(id: string, status: ForcedStatus): Promise<MessageSummary> {
    return this.call('POST', `/api/messages/${encodeURIComponent(id)}/status`, undefined, { status });
  }

  /**
   * Relays a capture to real inboxes through the sandbox's --relay, its message unchanged but for
   * the envelope's recipients; only to addresses --relay-allow lets through (403 otherwise; 409
   * without a relay).
   */
  release(id: string, to: string[], options: CallOptions = {}): Promise<Released> {
    return this.call('POST', `/api/messages/${encodeURIComponent(id)}/release`, undefined, { to }, options.signal);
  }

  /** The designers' check of a capture: compatibility, size, accessibility, dark mode, headers, spam. */
  check(id: string, options: { platforms?: CheckPlatform[] } & CallOptions = {}): Promise<CheckReport & { id: string }> {
    return this.call(
      'GET',
      `/api/messages/${encodeURIComponent(id)}/check`,
      { platform: options.platforms?.join(',') || undefined },
      undefined,
      options.signal,
    );
  }

  /**
   * A capture as an email client would show it, approximately (docs/checks.md, "Client views"):
   * the transformed HTML, its fidelity and what was removed by which rule.
   */
  render(id: string, client: ClientViewId, options: { mode?: RenderMode } & CallOptions = {}): Promise<ClientView> {
    return this.call('GET', `/api/messages/${encodeURIComponent(id)}/render`, { client, mode: options.mode }, undefined, options.signal);
  }

  /**
   * Checks every http(s) link and image of a capture (the sandbox reaches out only for this).
   * With `onEvent`, the results stream (`Accept: application/x-ndjson`): each event as it
   * arrives, the start, every link as it is checked and the end; the promise resolves the same.
   */
  async checkLinks(id: string, options: { timeoutMs?: number; onEvent?: (event: LinkEvent) => void } & CallOptions = {}): Promise<LinkCheck> {
    const path = `/api/messages/${encodeURIComponent(id)}/check/links`;
    const body = { timeout_ms: options.timeoutMs };
    if (!options.onEvent) return this.call('POST', path, undefined, body, options.signal);
    const url = this.baseUrl + path;
    const response = await this.send(url, this.init('POST', body, options.signal, 'application/x-ndjson'));
    if (!response.ok || !response.body) return this.parse(response, { method: 'POST', url });
    const links: LinkCheckResult[] = [];
    let result: LinkCheck = { total: 0, broken: 0, skipped: 0, links };
    for await (const event of jsonLines<LinkEvent>(response.body)) {
      if (event.type === 'link') {
        const { type: _, ...link } = event;
        links.push(link);
      } else if (event.type === 'done') result = { total: event.total, broken: event.broken, skipped: event.skipped, links };
      options.onEvent(event);
    }
    return result;
  }

  /** The same checks on a draft body, optionally wrapped in a sender's account template. */
  checkDraft(draft: { html: string; text?: string; sender?: string; platforms?: CheckPlatform[] }, options: CallOptions = {}): Promise<CheckReport> {
    const body = { html: draft.html, text: draft.text, sender: draft.sender, platform: draft.platforms?.join(',') };
    return this.call('POST', '/api/check', undefined, body, options.signal);
  }

  /**
   * A draft body wrapped in a sender's account template (the version in use), as a send with
   * `use_account_template` would be; or in a draft `template` instead.
   */
  async preview(sender: string, html: string, options: { template?: string } & CallOptions = {}): Promise<string> {
    return (await this.call<{ html: string }>('POST', '/api/preview', undefined, { sender, html, template: options.template }, options.signal)).html;
  }

  /** The account template the sender's next send is wrapped in (version 0: the configuration file's). */
  template(sender: string, options: CallOptions = {}): Promise<TemplateVersion> {
    return this.call('GET', `/api/senders/${encodeURIComponent(sender)}/template`, undefined, undefined, options.signal);
  }

  /** Saves a new version of the sender's account template (it must contain `{{content}}`); used from the next send on. */
  saveTemplate(sender: string, html: string, options: CallOptions = {}): Promise<TemplateVersion> {
    return this.call('PUT', `/api/senders/${encodeURIComponent(sender)}/template`, undefined, { html }, options.signal);
  }

  /** Every version of the sender's account template, version 0 (the configured one) first. */
  templateVersions(sender: string, options: CallOptions = {}): Promise<TemplateVersions> {
    return this.call('GET', `/api/senders/${encodeURIComponent(sender)}/template/versions`, undefined, undefined, options.signal);
  }

  /** Makes an earlier version the one in use again; without `version`, the configured one. */
  revertTemplate(sender: string, version?: number, options: CallOptions = {}): Promise<TemplateVersion> {
    return this.call('POST', `/api/senders/${encodeURIComponent(sender)}/template/revert`, undefined, version === undefined ? {} : { version }, options.signal);
  }

  /**
   * Captures re-wrapped in a draft template (absent: the version in use): each one's body as sent,
   * wrapped as a send would be. `ids` default to the sender's newest 20.
   */
  rewrap(sender: string, draft: { html?: string; ids?: string[] } = {}, options: CallOptions = {}): Promise<Rewrap> {
    return this.call('POST', `/api/senders/${encodeURIComponent(sender)}/template/rewrap`, undefined, draft, options.signal);
  }

  /** The --templates folder's .html files (`dir` null when Pigeonhole runs without one). */
  templateFiles(options: CallOptions = {}): Promise<TemplateFileList> {
    return this.call('GET', '/api/template-files', undefined, undefined, options.signal);
  }

  /** A template file, filled with its sample data and (with `sender`) wrapped in that sender's account template. */
  templateFile(name: string, options: { sender?: string } & CallOptions = {}): Promise<TemplateFile> {
    return this.call('GET', `/api/template-files/${encodeURIComponent(name)}`, { sender: options.sender }, undefined, options.signal);
  }

  /** Keeps a template file's sample data (a JSON object: the values of its `{{variables}}`). */
  saveTemplateSample(name: string, data: Record<string, unknown>, options: CallOptions = {}): Promise<{ name: string; sample: Record<string, unknown> }> {
    return this.call('PUT', `/api/template-files/${encodeURIComponent(name)}/sample`, undefined, { data }, options.signal);
  }

  /** Resets the sandbox, one team, or (`namespace`) one namespace's captures and the records of its addresses. */
  reset(options: { team?: string; namespace?: string; restoreFixtures?: boolean } = {}): Promise<ResetResult> {
    return this.call('POST', '/api/reset', undefined, { team: options.team, namespace: options.namespace, restore_fixtures: options.restoreFixtures });
  }

  /**
   * Starts the senders' counts against their daily limit over (every sender's, or one `sender`'s
   * or `team`'s): for a shared sandbox, once before a run. Resolves with how many had a count.
   */
  async resetDailyCounts(options: { sender?: string; team?: string } & CallOptions = {}): Promise<number> {
    const { signal, ...query } = options;
    return (await this.call<{ daily_counters: number }>('DELETE', '/api/senders/daily-counts', query, undefined, signal)).daily_counters;
  }

  /** The configured senders with their API keys (for sendEmail). */
  async senders(options: CallOptions = {}): Promise<Sender[]> {
    return (await this.call<{ senders: Sender[] }>('GET', '/api/senders', undefined, undefined, options.signal)).senders;
  }

  /** Every team's recipients with their flags and block status, newest first. */
  recipients(filter: { team?: string; q?: string; limit?: number; offset?: number } & CallOptions = {}): Promise<RecipientList> {
    const { signal, ...query } = filter;
    return this.call('GET', '/api/recipients', query, undefined, signal);
  }

  /** Flow subscriptions with their step timelines, newest first. */
  subscriptions(
    filter: { team?: string; email?: string; status?: SubscriptionStatus; limit?: number; offset?: number } & CallOptions = {},
  ): Promise<SubscriptionList> {
    const { signal, ...query } = filter;
    return this.call('GET', '/api/subscriptions', query, undefined, signal);
  }

  async blocks(team?: string): Promise<BlockEntry[]> {
    return (await this.call<{ blocks: BlockEntry[] }>('GET', '/api/blocks', { team })).blocks;
  }

  block(team: string, email: string): Promise<BlockEntry> {
    return this.call('POST', '/api/blocks', undefined, { team, email });
  }

  async unblock(team: string, email: string): Promise<void> {
    await this.call('DELETE', '/api/blocks', { team, email });
  }

  readonly faults = {
    list: async (): Promise<FaultRule[]> => (await this.call<{ faults: FaultRule[] }>('GET', '/api/faults')).faults,
    add: (rule: FaultRuleInput): Promise<FaultRule> => this.call('POST', '/api/faults', undefined, rule),
    get: (id: string): Promise<FaultRule> => this.call('GET', `/api/faults/${encodeURIComponent(id)}`),
    remove: async (id: string): Promise<void> => void (await this.call('DELETE', `/api/faults/${encodeURIComponent(id)}`)),
    clear: async (): Promise<void> => void (await this.call('DELETE', '/api/faults')),
  };

  readonly requests = {
    list: (filter: RequestLogFilter = {}): Promise<RequestLogList> => this.call('GET', '/api/requests', { ...filter }),
    clear: async (): Promise<void> => void (await this.call('DELETE', '/api/requests')),
  };

  /** The sandbox clock (flow waits, delivery delays, the daily-limit day). */
  readonly clock = {
    get: (): Promise<Clock> => this.call('GET', '/api/clock'),
    advance: (duration: string): Promise<Clock> => this.call('POST', '/api/clock/advance', undefined, { duration }),
    set: (at: Date | string): Promise<Clock> => this.call('POST', '/api/clock/set', undefined, { at: at instanceof Date ? at.toISOString() : at }),
    reset: (): Promise<Clock> => this.call('POST', '/api/clock/reset'),
  };

  /** Sends through the emulated /v1 API with an API key; resolves with the id (and "Recipient is blocked" when so). */
  async sendEmail(input: SendEmailInput): Promise<{ id: string; error?: string }> {
    const { apiKey, encryptionKey, ...fields } = input;
    const headers: Record<string, string> = { Authorization: `Api-Key ${apiKey}`, 'Content-Type': 'application/json' };
    if (encryptionKey !== undefined) headers['Encryption-Key'] = encryptionKey;
    const url = `${this.baseUrl}/v1/email/send/`;
    const response = await this.send(url, { method: 'POST', headers, body: JSON.stringify(fields) });
    return this.parse(response, { method: 'POST', url });
  }
}

function isWaitFailure(body: unknown): body is WaitFailure {
  return typeof body === 'object' && body !== null && typeof (body as WaitFailure).detail === 'string';
}

function isExpectFailure(body: unknown): body is ExpectFailure {
  return typeof body === 'object' && body !== null && typeof (body as ExpectFailure).count === 'number' && Array.isArray((body as ExpectFailure).messages);
}
