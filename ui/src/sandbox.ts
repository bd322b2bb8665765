import { PigeonholeClient, PigeonholeError } from '../../client/pigeonhole-client.ts';

/** No answer at all: the server is down or the network is gone (not an aborted request). */
export class SandboxUnreachable extends Error {
  constructor() {
    super('the sandbox cannot be reached');
  }
}

/**
 * fetch as the inbox needs it under the typed client: a failure to connect becomes
 * SandboxUnreachable, and an ended login session (the server restarted) opens the inbox again,
 * which logs in anew.
 */
async function inboxFetch(input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(input, init);
  } catch (error) {
    if (init.signal?.aborted) throw error;
    throw new SandboxUnreachable();
  }
  if (response.headers.get('WWW-Authenticate')?.startsWith('Session ')) location.assign('/');
  return response;
}

/** The sandbox API of the server that serves the inbox: the typed client, on this page's origin. */
export const sandbox = new PigeonholeClient({ baseUrl: typeof location === 'undefined' ? undefined : location.origin, fetch: inboxFetch });

/**
 * The preview frame's source: the HTML body as the server prepares it (remote content blocked
 * unless `remote`), in a client's colour mode, or as a client view (`client`); its policy is the
 * response's header in every mode.
 */
export function htmlUrl(id: string, remote: boolean, mode?: 'light' | 'styles' | 'invert', client?: string): string {
  const query = [remote ? 'remote=1' : '', mode ? `mode=${mode}` : '', client ? `client=${encodeURIComponent(client)}` : ''].filter(Boolean).join('&');
  return `/api/messages/${encodeURIComponent(id)}/html${query ? `?${query}` : ''}`;
}

/** The `detail` of an /api error body, when it has one. */
export function answerDetail(error: PigeonholeError): string | null {
  const body = error.body;
  return body !== null && typeof body === 'object' && 'detail' in body ? String(body.detail) : null;
}

/** Why a call failed, in a few words: the server's `detail`, else its status. */
export function reason(error: Error): string {
  if (!(error instanceof PigeonholeError)) return error.message;
  return answerDetail(error) ?? `${error.status} ${error.statusText}`;
}

/** The server answered 404 (a capture gone, or a build without this API). */
export function notFound(error: unknown): boolean {
  return error instanceof PigeonholeError && error.status === 404;
}
