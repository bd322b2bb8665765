import { api, read } from './app.ts';

export interface Capture {
  id: string;
  source: string;
  from: string;
  recipient: string;
  to: string[];
  subject: string;
  status: string;
  blocked: boolean;
  redirected: boolean;
  created_at: string;
}

export interface V1Subscription {
  id: number;
  flow_name: string;
  flow_trigger: string;
  recipient_email: string;
  status: string;
  current_step_order: number;
  next_send_date: string | null;
  created_at: string;
  updated_at: string;
}

/** The sandbox API and the /v1 calls a flow test makes, against one server. */
export function flowClient(url: string, key = 'test-key') {
  const sandbox = api(url, null);
  const v1 = api(url, key);
  const ok = async (response: Promise<Response>) => {
    const res = await read(await response);
    if (res.status >= 300) throw new Error(`HTTP ${res.status}: ${res.text}`);
    return res.body as any;
  };
  return {
    v1,
    sandbox,
    advance: (duration: string) => ok(sandbox.post('/api/clock/advance', { duration })),
    setClock: (at: string) => ok(sandbox.post('/api/clock/set', { at })),
    clock: () => ok(sandbox.get('/api/clock')),
    subscribe: (flow_trigger: string, email: string, extra: Record<string, unknown> = {}) =>
      ok(v1.post('/v1/flows/subscribe/', { flow_trigger, email, ...extra })),
    setFlags: (email: string, flags: string) => ok(v1.post('/v1/recipients/flags/set/', { email, flags })),
    /** Captures to an original recipient, oldest first. */
    async mail(recipient: string): Promise<Capture[]> {
      const body = await ok(sandbox.get(`/api/messages?limit=500&recipient=${encodeURIComponent(recipient)}`));
      return (body.messages as Capture[]).filter((m) => m.recipient === recipient).reverse();
    },
    async subjects(recipient: string): Promise<string[]> {
      return (await this.mail(recipient)).map((m) => m.subject);
    },
    /** The recipient's one subscription to the flow, as /v1 lists it (the newest if several). */
    async subscription(email: string, trigger: string): Promise<V1Subscription> {
      const list = (await ok(v1.get(`/v1/flows/subscriptions/?email=${encodeURIComponent(email)}&flow_trigger=${trigger}`))) as V1Subscription[];
      return list[0]!;
    },
    async flags(email: string): Promise<string[]> {
      const body = await ok(v1.get(`/v1/recipients/?email=${encodeURIComponent(email)}`));
      return body.results[0]?.flags ?? [];
    },
    /** The sandbox API's view, with the step timeline. */
    async timeline(email: string): Promise<any> {
      const body = await ok(sandbox.get(`/api/subscriptions?email=${encodeURIComponent(email)}`));
      return body.subscriptions[0];
    },
  };
}

/** A flow definition for test configurations (the sample config's sender and team). */
export function flow(trigger: string, steps: unknown[], sender = 'acme-main') {
  return { trigger, name: `${trigger} flow`, sender, steps };
}
