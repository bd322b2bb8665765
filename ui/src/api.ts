import type {
  CheckPlatform,
  CheckReport,
  LinkEvent,
  Clock,
  MessageDetail,
  MessageFilter,
  MessageSummary,
  Page,
  Recipient,
  Sender,
  Subscription,
} from './types.ts';

/** An answer other than 2xx: the status and the server's `detail` (or the status text). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly statusText: string,
    /** The `detail` of the /api error body, when it has one. */
    readonly detail: string | null,
  ) {
    super(detail ?? `${status} ${statusText}`);
  }
}

/** No answer at all: the server is down or the network is gone (not an aborted request). */
export class SandboxUnreachable extends Error {
  constructor() {
    super('the sandbox cannot be reached');
  }
}

/** fetch, with a failure to connect turned into SandboxUnreachable and any answer but 2xx into ApiError. */
async function request(path: string, init: RequestInit = {}): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(path, init);
  } catch (error) {
    if (init.signal?.aborted) throw error;
    throw new SandboxUnreachable();
  }
  // The login session ended (the server restarted): open the inbox again, which logs in anew.
  if (response.headers.get('WWW-Authenticate')?.startsWith('Session ')) location.assign('/');
  if (!response.ok) throw new ApiError(response.status, response.statusText, detailOf(await response.text().catch(() => '')));
  return response;
}

function detailOf(text: string): string | null {
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed && typeof parsed === 'object' && 'detail' in parsed ? String(parsed.detail) : null;
  } catch {
    return null;
  }
}

async function call<T>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
  const response = await request(path, {
    method,
    signal,
    headers: body === undefined ? { Accept: 'application/json' } : { Accept: 'application/json', 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  try {
    return (text === '' ? null : JSON.parse(text)) as T;
  } catch {
    return null as T;
  }
}

function query(params: Record<string, string | number | boolean | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined && value !== '') search.set(key, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
}

function filterParams(filter: MessageFilter): Record<string, string | boolean | undefined> {
  return {
    q: filter.q?.trim() || undefined,
    namespace: filter.namespace,
    source: filter.source,
    status: filter.status,
    blocked: filter.blocked,
    redirected: filter.redirected,
    read: filter.read,
  };
}

/** Every call the UI makes to the sandbox API, in one place. */
export const api = {
  messages: (filter: MessageFilter, offset: number, limit: number, signal?: AbortSignal) =>
    call<Page>('GET', `/api/messages${query({ ...filterParams(filter), offset, limit })}`, undefined, signal),
  message: (id: string, signal?: AbortSignal) => call<MessageDetail>('GET', `/api/messages/${encodeURIComponent(id)}`, undefined, signal),
  setRead: (id: string, read: boolean) => call<MessageSummary>('PATCH', `/api/messages/${encodeURIComponent(id)}`, { read }),
  remove: (id: string) => call<void>('DELETE', `/api/messages/${encodeURIComponent(id)}`),
  clear: () => call<void>('DELETE', '/api/messages'),
  /** One namespace's captures and the recipient records of its addresses (POST /api/reset). */
  clearNamespace: (namespace: string) => call<unknown>('POST', '/api/reset', { namespace }),
  raw: async (id: string, signal?: AbortSignal) => (await request(`/api/messages/${encodeURIComponent(id)}/raw`, { signal })).text(),
  /** The HTML body as the preview frame gets it (for a colour mode the frame cannot ask for). */
  html: async (id: string, remote: boolean, signal?: AbortSignal) => (await request(htmlUrl(id, remote), { signal })).text(),
  senders: () => call<{ senders: Sender[] }>('GET', '/api/senders').then((b) => b.senders),
  preview: (sender: string, html: string, signal?: AbortSignal) => call<{ html: string }>('POST', '/api/preview', { sender, html }, signal).then((b) => b.html),
  recipients: (params: { q?: string; team?: string; offset: number; limit: number }) =>
    call<{ total: number; offset: number; limit: number; recipients: Recipient[] }>('GET', `/api/recipients${query(params)}`),
  subscriptions: (params: { email?: string; status?: string; offset: number; limit: number }) =>
    call<{ total: number; offset: number; limit: number; subscriptions: Subscription[] }>('GET', `/api/subscriptions${query(params)}`),
  check: (id: string, platforms: CheckPlatform[], signal?: AbortSignal) =>
    call<CheckReport & { id: string }>(
      'GET',
      `/api/messages/${encodeURIComponent(id)}/check${query({ platform: platforms.join(',') || undefined })}`,
      undefined,
      signal,
    ),
  checkDraft: (body: { html: string; sender?: string; platform?: string }, signal?: AbortSignal) => call<CheckReport>('POST', '/api/check', body, signal),
  /** The link check, as it happens: `onEvent` gets each JSON line of the stream. */
  checkLinks: async (id: string, onEvent: (event: LinkEvent) => void, signal?: AbortSignal) => {
    const url = `/api/messages/${encodeURIComponent(id)}/check/links`;
    const response = await request(url, { method: 'POST', signal, headers: { Accept: 'application/x-ndjson' } });
    if (!response.body) throw new ApiError(response.status, response.statusText, 'The answer has no body.');
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffered = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffered += value;
      let newline: number;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, newline).trim();
        buffered = buffered.slice(newline + 1);
        if (line) onEvent(JSON.parse(line) as LinkEvent);
      }
    }
  },
  clock: () => call<Clock>('GET', '/api/clock'),
  advanceClock: (duration: string) => call<Clock>('POST', '/api/clock/advance', { duration }),
  resetClock: () => call<Clock>('POST', '/api/clock/reset'),
};

export function htmlUrl(id: string, remote: boolean): string {
  return `/api/messages/${encodeURIComponent(id)}/html${remote ? '?remote=1' : ''}`;
}
