import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { parseDuration } from '../time/duration.ts';
import { isValidEmail } from '../email-address.ts';
import { faultRuleSchema } from '../patterns/fault-rule.ts';

/**
 * The sandbox configuration file: teams, their senders (API keys and rules) and the flows.
 * Parsed once at start-up; any problem names the file, the field and what is wrong.
 */

const email = z.string().refine(isValidEmail, 'not a valid email address');
const duration = z.string().refine((value) => parseDuration(value) !== null, 'not a duration like "30s", "15m", "2h", "1d" or "1d12h"');
/** A wait of nothing would let a flow that jumps back run forever without the clock moving. */
const positiveDuration = duration.refine((value) => (parseDuration(value) ?? 0) > 0, 'must be longer than 0s');
const identifier = z.string().regex(/^[A-Za-z0-9_.-]+$/, 'use letters, digits, ".", "_" or "-"');

const sender = z
  .object({
    id: identifier,
    name: z.string().default(''),
    email: email,
    apiKey: z.string().min(1, 'may not be empty'),
    revoked: z.boolean().default(false),
    /** Emails per UTC day through the API; null means no limit. */
    dailyLimit: z.number().int().positive().nullable().default(100),
    developmentMode: z.boolean().default(false),
    developmentRecipient: email.nullable().default(null),
    /** HTML with one `{{content}}` where the email body goes. */
    accountTemplate: z
      .string()
      .refine((html) => html.includes('{{content}}'), 'must contain {{content}} where the body goes')
      .nullable()
      .default(null),
  })
  .strict()
  .refine((s) => !s.developmentMode || s.developmentRecipient !== null, {
    message: 'developmentMode needs a developmentRecipient',
    path: ['developmentRecipient'],
  });

const team = z
  .object({
    id: identifier,
    name: z.string().default(''),
    flowsEnabled: z.boolean().default(true),
    blockedRecipients: z.array(email).default([]),
    senders: z.array(sender).min(1, 'a team needs at least one sender'),
  })
  .strict();

const stepName = z.string().min(1);

const sendEmailStep = z
  .object({
    type: z.literal('send_email'),
    name: stepName.optional(),
    subject: z.string().min(1),
    html: z.string().min(1),
    text: z.string().optional(),
    useAccountTemplate: z.boolean().default(true),
  })
  .strict();

const waitStep = z
  .object({
    type: z.literal('wait'),
    name: stepName.optional(),
    duration: positiveDuration.optional(),
    untilFlag: z.string().min(1).optional(),
    timeout: positiveDuration.optional(),
  })
  .strict()
  .refine((s) => (s.duration !== undefined) !== (s.untilFlag !== undefined), 'give either duration, or untilFlag with a timeout')
  .refine((s) => s.untilFlag === undefined || s.timeout !== undefined, { message: 'untilFlag needs a timeout', path: ['timeout'] });

const conditionStep = z
  .object({
    type: z.literal('condition'),
    name: stepName.optional(),
    flag: z.string().min(1),
    /** Jump to this step when the recipient lacks the flag (else continue). */
    whenMissing: stepName.optional(),
    /** Jump to this step when the recipient has the flag (else continue). */
    whenPresent: stepName.optional(),
  })
  .strict()
  .refine((s) => (s.whenMissing !== undefined) !== (s.whenPresent !== undefined), 'give exactly one of whenMissing or whenPresent');

const actionStep = z
  .object({
    type: z.literal('action'),
    name: stepName.optional(),
    action: z.enum(['set_flag', 'clear_flag', 'suppress']),
    flag: z.string().min(1).optional(),
  })
  .strict()
  .refine((s) => s.action === 'suppress' || s.flag !== undefined, { message: 'set_flag and clear_flag need a flag', path: ['flag'] });

const step = z.discriminatedUnion('type', [sendEmailStep, waitStep, conditionStep, actionStep], {
  error: (issue) => (issue.code === 'invalid_union' ? 'unknown step type (use send_email, wait, condition or action)' : undefined),
});

const flow = z
  .object({
    trigger: z.string().regex(/^[A-Za-z0-9_.-]+$/, 'use letters, digits, ".", "_" or "-"'),
    name: z.string().min(1),
    sender: identifier,
    steps: z.array(step),
  })
  .strict();

const sandboxSchema = z
  .object({
    $schema: z.string().optional(),
    teams: z.array(team).min(1, 'at least one team is needed'),
    flows: z.array(flow).default([]),
    delivery: z
      .object({ delay: duration.default('0s') })
      .strict()
      .default({ delay: '0s' }),
    /** Fault rules in force from start-up and restored by every reset (see domain/toolkit/faults.ts). */
    faults: z.array(faultRuleSchema).default([]),
  })
  .strict()
  .superRefine((config, ctx) => {
    const seen = (kind: string) => {
      const map = new Map<string, string>();
      return (value: string, path: (string | number)[]) => {
        if (map.has(value)) ctx.addIssue({ code: 'custom', path, message: `duplicate ${kind} "${value}" (also at ${map.get(value)})` });
        else map.set(value, path.join('.'));
      };
    };
    const teamIds = seen('team id');
    const senderIds = seen('sender id');
    const apiKeys = seen('apiKey');
    const senderTeams = new Map<string, string>();
    config.teams.forEach((t, ti) => {
      teamIds(t.id, ['teams', ti, 'id']);
      t.senders.forEach((s, si) => {
        senderIds(s.id, ['teams', ti, 'senders', si, 'id']);
        apiKeys(s.apiKey, ['teams', ti, 'senders', si, 'apiKey']);
        senderTeams.set(s.id, t.id);
      });
    });
    const faultIds = seen('fault id');
    const keys = new Set(config.teams.flatMap((t) => t.senders.filter((s) => !s.revoked).map((s) => s.apiKey)));
    config.faults.forEach((f, fi) => {
      if (f.id !== undefined) faultIds(f.id, ['faults', fi, 'id']);
      const sender = f.match.sender;
      if (sender !== undefined && !senderTeams.has(sender) && !keys.has(sender)) {
        ctx.addIssue({ code: 'custom', path: ['faults', fi, 'match', 'sender'], message: `no sender has id or apiKey "${sender}"` });
      }
    });
    const triggers = seen('flow trigger');
    config.flows.forEach((f, fi) => {
      triggers(f.trigger, ['flows', fi, 'trigger']);
      if (!senderTeams.has(f.sender)) ctx.addIssue({ code: 'custom', path: ['flows', fi, 'sender'], message: `no sender has id "${f.sender}"` });
      const names = seen('step name');
      f.steps.forEach((s, si) => {
        if (s.name !== undefined) names(s.name, ['flows', fi, 'steps', si, 'name']);
      });
      const stepNames = new Set(f.steps.map((s) => s.name).filter(Boolean));
      f.steps.forEach((s, si) => {
        if (s.type !== 'condition') return;
        const target = s.whenMissing ?? s.whenPresent!;
        const key = s.whenMissing !== undefined ? 'whenMissing' : 'whenPresent';
        if (!stepNames.has(target)) {
          ctx.addIssue({ code: 'custom', path: ['flows', fi, 'steps', si, key], message: `no step in this flow is named "${target}"` });
          return;
        }
        // A jump back repeats steps; without a wait among them it would repeat them forever.
        const to = f.steps.findIndex((x) => x.name === target);
        if (to <= si && !f.steps.slice(to, si).some((x) => x.type === 'wait')) {
          ctx.addIssue({
            code: 'custom',
            path: ['flows', fi, 'steps', si, key],
            message: `jumping back to "${target}" with no wait step in between would loop forever`,
          });
        }
      });
    });
  });

export type SandboxConfig = z.output<typeof sandboxSchema>;
export type TeamConfig = SandboxConfig['teams'][number];
export type SenderConfig = TeamConfig['senders'][number];
export type FlowConfig = SandboxConfig['flows'][number];
export type FlowStepConfig = FlowConfig['steps'][number];

export class ConfigError extends Error {}

/** Reads and validates a configuration file; throws ConfigError naming file, field and problem. */
export function loadSandboxConfig(file: string): SandboxConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(`Cannot read configuration file ${file}: ${(error as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`Configuration file ${file} is not valid JSON: ${(error as Error).message}`);
  }
  return parseSandboxConfig(json, file);
}

export function parseSandboxConfig(json: unknown, file: string): SandboxConfig {
  const result = sandboxSchema.safeParse(json);
  if (result.success) return result.data;
  const lines = result.error.issues.map((issue) => `  ${formatPath(issue.path) || '(top level)'}: ${issue.message}`);
  throw new ConfigError(`Invalid configuration file ${file}:\n${lines.join('\n')}`);
}

function formatPath(path: PropertyKey[]): string {
  return path.map((part, i) => (typeof part === 'number' ? `[${part}]` : `${i === 0 ? '' : '.'}${String(part)}`)).join('');
}
