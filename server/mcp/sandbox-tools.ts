import { z } from 'zod';
import type { PigeonholeClient } from '../../client/pigeonhole-client.ts';
import * as S from '../http/openapi/schemas.ts';
import { CHANGES, type DefineTool, DESTROYS, READS, READS_MAIL } from './define-tool.ts';
import { page } from './message-tools.ts';
import { ToolInputError } from './untrusted.ts';

/** The tools that drive the sandbox: senders, sending, recipients, subscriptions, the clock, faults, reset. */
export function registerSandboxTools(tool: DefineTool, client: PigeonholeClient): void {
  tool(
    'list_senders',
    'List the configured senders with their API keys, teams and rules; pass an api_key to send_email.',
    {},
    async () => ({ senders: await client.senders() }),
    READS,
  );
  tool(
    'send_email',
    'Send an email through the emulated service API (POST /v1/email/send/) with an API key; it is captured, never delivered. Returns {id} or the API error (status and body).',
    {
      api_key: z.string().min(1).describe('An API key from list_senders, e.g. "test-key".'),
      recipient: z.string().describe('The recipient address.'),
      subject: z.string(),
      body: z.string().describe('The HTML body.'),
      plain_body: z.string().optional().describe('The plain-text part.'),
      first_name: z.string().optional(),
      last_name: z.string().optional(),
      flags: z.array(z.string()).optional().describe('Flags to add to the recipient.'),
      use_account_template: z.boolean().optional().describe("Wrap the body in the sender's account template (default true)."),
    },
    async ({ api_key, ...fields }) => client.sendEmail({ apiKey: api_key, ...fields }),
    CHANGES,
  );
  tool(
    'list_recipients',
    "List every team's recipients, newest first, with their flags and whether they are blocked (and why).",
    { team: z.string().optional().describe('Team id.'), q: z.string().optional().describe('Search words.'), ...page(500, 50) },
    async (args) => client.recipients(args),
    READS_MAIL,
  );
  tool(
    'list_subscriptions',
    'List flow subscriptions, newest first, each with its step timeline (done, current, pending) and when the next step is due.',
    {
      team: z.string().optional(),
      email: z.string().optional().describe('Recipient address.'),
      status: S.SubscriptionStatus.optional(),
      ...page(500, 50),
    },
    async (args) => client.subscriptions(args),
    READS_MAIL,
  );
  tool('get_clock', 'Read the sandbox clock (now, offset from real time).', {}, async () => client.clock.get(), READS);
  tool(
    'advance_clock',
    'Move the sandbox clock forward (e.g. "2d", "90m", "1d12h"); answers once every flow step and delivery outcome due on the way has run.',
    { duration: z.string().min(1).describe('A duration such as 30s, 15m, 2h, 1d or 1d12h.') },
    async ({ duration }) => client.clock.advance(duration),
    CHANGES,
  );
  tool(
    'set_clock',
    'Set the sandbox clock to a later instant (ISO-8601), running everything due on the way.',
    { at: z.string().min(1).describe('ISO-8601 time, e.g. 2030-02-01T00:00:00Z.') },
    async ({ at }) => client.clock.set(at),
    CHANGES,
  );
  tool('reset_clock', 'Put the sandbox clock back to real time.', {}, async () => client.clock.reset(), { ...CHANGES, idempotent: true });
  tool(
    'set_delivery_outcome',
    'Force the delivery status of a captured email (a bounce or complaint blocks the recipient for later sends).',
    { id: z.string().min(1).describe('The capture id.'), status: S.ForcedStatus },
    async ({ id, status }) => client.setStatus(id, status),
    DESTROYS,
  );
  tool(
    'add_fault',
    'Add a fault rule that makes matching /v1 requests or SMTP commands fail: a status, a delay, a dropped connection, an SMTP reply, or a rate limit per API key.',
    {
      ...S.FaultRuleInput.shape,
      id: z.string().optional().describe('A name for the rule (chosen when absent).'),
      target: S.FaultRuleInput.shape.target.describe('http: /v1 requests; smtp: SMTP sessions.'),
    },
    async (rule) => client.faults.add(rule),
    CHANGES,
  );
  tool('list_faults', 'List the fault rules with how often each matched and fired.', {}, async () => ({ faults: await client.faults.list() }), READS);
  tool(
    'remove_fault',
    'Remove one fault rule by id, or every rule with all: true.',
    { id: z.string().optional().describe('The rule id.'), all: z.boolean().default(false).describe('Remove every rule.') },
    async ({ id, all }) => {
      if (all) await client.faults.clear();
      else if (id !== undefined) await client.faults.remove(id);
      else throw new ToolInputError('Give the id of a rule, or all: true.');
      return { removed: all ? 'all' : id };
    },
    DESTROYS,
  );
  tool(
    'reset_sandbox',
    "Clear the sandbox before a test: deletes captures, recipients, subscriptions, blocks, counters, the request log, added faults and the clock (or only one team; or with namespace only that namespace's captures and the records of its addresses).",
    {
      team: z.string().optional().describe('Only this team.'),
      namespace: z.string().optional().describe("Only this namespace's captures and the records of its addresses (the clock and the rest stay)."),
      restore_fixtures: z.boolean().default(true).describe('Bring back the configured blocks and fault rules.'),
    },
    async ({ team, namespace, restore_fixtures }) => client.reset({ team, namespace, restoreFixtures: restore_fixtures }),
    DESTROYS,
  );
}
