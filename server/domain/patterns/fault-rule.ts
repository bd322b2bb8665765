import { z } from 'zod';
import { globMatcher, type Matcher } from './glob.ts';
import { linearRegex, UnsupportedRegex } from './linear-regex.ts';

/**
 * What a fault rule is, as written in the configuration file or posted to /api/faults: its schema
 * and the recipient and route patterns it matches with. The rules in force live in faults.ts.
 */

const SMTP_STAGES = ['connect', 'auth', 'mail', 'rcpt', 'data'] as const;
export type SmtpStage = (typeof SMTP_STAGES)[number];

const MAX_DELAY_MS = 120_000;
/** The most a rate limit may allow per second, and the largest burst. */
const MAX_RATE = 100_000;

const action = z.discriminatedUnion(
  'type',
  [
    z.object({ type: z.literal('status'), status: z.union([z.literal(429), z.literal(500), z.literal(503)], { error: 'must be 429, 500 or 503' }) }).strict(),
    z.object({ type: z.literal('delay'), ms: z.number().int().min(0).max(MAX_DELAY_MS) }).strict(),
    z.object({ type: z.literal('drop') }).strict(),
    z
      .object({
        type: z.literal('smtp_reply'),
        code: z.number().int().min(400).max(599),
        message: z
          .string()
          .min(1)
          .max(500)
          .regex(/^[^\r\n]*$/, 'one line, no CR or LF'),
      })
      .strict(),
    // A token bucket per API key: `rate` requests a second on average, up to `burst` at once.
    z
      .object({
        type: z.literal('rate_limit'),
        rate: z.number().positive().max(MAX_RATE),
        burst: z.number().int().min(1).max(MAX_RATE).optional(),
      })
      .strict(),
  ],
  { error: (issue) => (issue.code === 'invalid_union' ? 'must be status, delay, drop, smtp_reply or rate_limit' : undefined) },
);

/** The longest route or recipient pattern: matching costs up to its length per character tested. */
const MAX_PATTERN = 256;
const pattern = z.string().min(1).max(MAX_PATTERN, `at most ${MAX_PATTERN} characters`);

const match = z
  .object({
    route: pattern.optional(),
    method: z.enum(['GET', 'POST', 'DELETE']).optional(),
    sender: z.string().min(1).optional(),
    recipient: pattern.optional(),
    stage: z.enum(SMTP_STAGES).optional(),
  })
  .strict();

/** A rule as written in the configuration file or posted to /api/faults. */
export const faultRuleSchema = z
  .object({
    id: z
      .string()
      .regex(/^[A-Za-z0-9_.-]{1,64}$/, 'use 1-64 letters, digits, ".", "_" or "-"')
      .optional(),
    target: z.enum(['http', 'smtp']),
    match: match.default({}),
    action,
    times: z.number().int().positive().optional(),
    probability: z.number().min(0).max(1).optional(),
    seed: z.number().int().min(0).max(0xffffffff).optional(),
  })
  .strict()
  .superRefine((rule, ctx) => {
    const refuse = (path: string[], message: string) => ctx.addIssue({ code: 'custom', path, message });
    if (rule.target === 'http') {
      if (rule.match.stage !== undefined) refuse(['match', 'stage'], 'stage is for smtp rules');
      if (rule.action.type === 'smtp_reply') refuse(['action', 'type'], 'smtp_reply is for smtp rules');
    } else {
      if (rule.match.route !== undefined) refuse(['match', 'route'], 'route is for http rules');
      if (rule.match.method !== undefined) refuse(['match', 'method'], 'method is for http rules');
      if (rule.action.type === 'status') refuse(['action', 'type'], 'status is for http rules (use smtp_reply)');
    }
    const problem = rule.match.recipient === undefined ? null : patternProblem(rule.match.recipient);
    if (problem !== null) refuse(['match', 'recipient'], problem);
    if (rule.seed !== undefined && rule.probability === undefined) refuse(['seed'], 'seed needs a probability');
    if (rule.action.type === 'rate_limit') {
      if (rule.times !== undefined) refuse(['times'], 'a rate_limit rule throttles for as long as it exists (remove it to stop)');
      if (rule.probability !== undefined) refuse(['probability'], 'a rate_limit rule throttles by its bucket, not by chance');
    }
  });

export type FaultRuleSpec = z.output<typeof faultRuleSchema>;
export type FaultAction = FaultRuleSpec['action'];
export type RateLimitAction = Extract<FaultAction, { type: 'rate_limit' }>;
/**
 * A recipient pattern: `/regex/flags`, or a glob where `*` is any run of characters and `?`
 * one character, compared without regard to case. Null when a regex does not compile or uses
 * what the linear engine does not run (see linear-regex.ts and patternProblem).
 */
export function compilePattern(pattern: string): Matcher | null {
  try {
    return compileOrThrow(pattern);
  } catch {
    return null;
  }
}

/** Why a recipient pattern cannot be used, or null when it can. */
function patternProblem(pattern: string): string | null {
  try {
    compileOrThrow(pattern);
    return null;
  } catch (error) {
    if (error instanceof UnsupportedRegex) return `not supported in a /regular expression/: ${error.message} (patterns run in linear time)`;
    return 'not a valid /regular expression/';
  }
}

function compileOrThrow(pattern: string): Matcher {
  const regex = /^\/(.+)\/([a-z]*)$/s.exec(pattern);
  if (!regex) return glob(pattern, true);
  // The JavaScript engine checks the syntax (and throws on a bad one); the linear engine runs it.
  new RegExp(regex[1]!, regex[2]!);
  return linearRegex(regex[1]!, regex[2]!);
}

/** A glob where `*` is any run of characters and `?` one character (linear, see glob.ts). */
export function glob(pattern: string, ignoreCase: boolean): Matcher {
  return globMatcher(pattern, { ignoreCase, questionMark: true });
}
