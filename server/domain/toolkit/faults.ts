import { randomInt } from 'node:crypto';
import type { Clock } from '../time/clock.ts';
import type { Directory } from '../directory/directory.ts';
import type { Matcher } from '../patterns/glob.ts';
import { compilePattern, faultRuleSchema, glob, type FaultAction, type FaultRuleSpec, type RateLimitAction, type SmtpStage } from '../patterns/fault-rule.ts';

/**
 * Fault injection for the /v1 API and SMTP: rules matched by route or SMTP stage, sender and
 * recipient, that answer with a contract error, a delay, a dropped connection or an SMTP reply,
 * or throttle each API key with a token bucket (rate_limit).
 * Rules from the configuration file come back on every reset; rules added through the sandbox
 * API live in memory until they are removed, the sandbox is reset, or the process restarts.
 */

/**
 * An action that fired, with the id of the rule that fired it; a rate limit that refused a
 * request says in how many whole seconds its bucket has a token again.
 */
export type FiredFault = (Exclude<FaultAction, RateLimitAction> & { rule: string }) | (RateLimitAction & { rule: string; retryAfterSeconds: number });

/** A rule with its runtime state, as the sandbox API lists it. */
export interface FaultRule extends FaultRuleSpec {
  id: string;
  source: 'config' | 'api';
  seed?: number;
  /** Requests (or SMTP commands) the rule matched, and how often it fired. */
  matched: number;
  fired: number;
  /** Fires left when `times` is set, else null. */
  remaining: number | null;
}

export interface HttpRequestFacts {
  /** The route as mounted, e.g. "/v1/email/detail/:id/". */
  route: string;
  /** The path as requested, e.g. "/v1/email/detail/JDT/". */
  path?: string;
  method: string;
  /** Sender id of the request's API key. */
  sender: string | null;
  recipient?: string | null;
}

export interface SmtpFacts {
  stage: SmtpStage;
  sender?: string | null;
  recipient?: string | null;
}

export interface FaultInjection {
  target: 'http' | 'smtp';
  rule: FaultRule;
  action: FaultAction;
}

/** A fault rule that cannot be added, with the field and the reason. */
export class InvalidFaultRule extends Error {}

interface Live {
  rule: FaultRule;
  next: (() => number) | null;
  route: Matcher | null;
  recipient: Matcher | null;
  /** rate_limit rules: one bucket per API key (sender id; "" for anonymous SMTP). */
  buckets: Map<string, TokenBucket> | null;
}

export class Faults {
  private live: Live[] = [];
  private counter = 0;
  private readonly listeners = new Set<(injection: FaultInjection) => void>();

  constructor(
    private readonly directory: Directory,
    private readonly configured: readonly FaultRuleSpec[],
    private readonly clock: Clock,
  ) {
    this.restoreConfigured();
  }

  list(): FaultRule[] {
    return this.live.map((l) => l.rule);
  }

  get(id: string): FaultRule | undefined {
    return this.live.find((l) => l.rule.id === id)?.rule;
  }

  /** Validates and adds a rule; a sender given as an API key is stored as its sender id. */
  add(input: unknown, source: FaultRule['source'] = 'api'): FaultRule {
    const parsed = faultRuleSchema.safeParse(input);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new InvalidFaultRule(`${issue.path.join('.') || 'rule'}: ${issue.message}`);
    }
    const spec = parsed.data;
    let id = spec.id;
    while (id === undefined || (spec.id === undefined && this.get(id))) id = `fault-${++this.counter}`;
    if (this.get(id)) throw new InvalidFaultRule(`id: a fault with id "${id}" exists`);
    let sender = spec.match.sender;
    if (sender !== undefined) {
      const caller = this.directory.sender(sender) ?? this.directory.byApiKey(sender);
      if (!caller) throw new InvalidFaultRule(`match.sender: "${sender}" is neither a sender id nor an API key`);
      sender = caller.sender.id;
    }
    // Without a seed, one is chosen and shown, so a run that found a problem can be repeated.
    const seed = spec.probability === undefined ? undefined : (spec.seed ?? randomInt(0, 2 ** 31));
    const action = spec.action.type === 'rate_limit' ? { ...spec.action, burst: spec.action.burst ?? Math.max(1, Math.ceil(spec.action.rate)) } : spec.action;
    const rule: FaultRule = {
      ...spec,
      action,
      id,
      source,
      match: { ...spec.match, ...(sender === undefined ? {} : { sender }) },
      ...(seed === undefined ? {} : { seed }),
      matched: 0,
      fired: 0,
      remaining: spec.times ?? null,
    };
    this.live.push({
      rule,
      next: seed === undefined ? null : mulberry32(seed),
      route: spec.match.route === undefined ? null : glob(spec.match.route, false),
      recipient: spec.match.recipient === undefined ? null : compilePattern(spec.match.recipient),
      buckets: action.type === 'rate_limit' ? new Map() : null,
    });
    return rule;
  }

  remove(id: string): FaultRule | undefined {
    const at = this.live.findIndex((l) => l.rule.id === id);
    if (at < 0) return undefined;
    return this.live.splice(at, 1)[0]!.rule;
  }

  /**
   * Removes rules added through the API (all, or only those matching one of `senders`) and,
   * when `restoreConfigured`, puts the configuration file's rules back with fresh counters.
   * Returns how many rules were removed.
   */
  reset(options: { senders?: ReadonlySet<string>; restoreConfigured: boolean }): number {
    const doomed = (l: Live) =>
      options.senders === undefined ? true : l.rule.source === 'api' && l.rule.match.sender !== undefined && options.senders.has(l.rule.match.sender);
    const before = this.live.length;
    this.live = this.live.filter((l) => !doomed(l));
    const removed = before - this.live.length;
    if (options.senders === undefined && options.restoreConfigured) this.restoreConfigured();
    return removed;
  }

  /** What the HTTP layer should do for an authenticated /v1 request, or null. */
  matchHttp(facts: HttpRequestFacts): FiredFault | null {
    return this.fire(
      'http',
      (l) => {
        const m = l.rule.match;
        if (l.route && !l.route.test(facts.route) && !(facts.path !== undefined && l.route.test(facts.path))) return false;
        if (m.method !== undefined && m.method !== facts.method.toUpperCase()) return false;
        return this.common(l, facts.sender, facts.recipient);
      },
      facts.sender,
    );
  }

  /**
   * What the SMTP server should do at this stage of a session, or null. A rate limit without a
   * stage counts messages: it is asked at MAIL FROM only.
   */
  matchSmtp(facts: SmtpFacts): FiredFault | null {
    return this.fire(
      'smtp',
      (l) => {
        const stage = l.rule.match.stage ?? (l.rule.action.type === 'rate_limit' ? 'mail' : undefined);
        if (stage !== undefined && stage !== facts.stage) return false;
        return this.common(l, facts.sender ?? null, facts.recipient);
      },
      facts.sender ?? null,
    );
  }

  /** Called with every injected fault (metrics, the inbox UI). Returns an unsubscribe function. */
  onInjected(listener: (injection: FaultInjection) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private common(l: Live, sender: string | null, recipient: string | null | undefined): boolean {
    if (l.rule.match.sender !== undefined && l.rule.match.sender !== sender) return false;
    if (l.recipient && (recipient == null || !l.recipient.test(recipient))) return false;
    return true;
  }

  /**
   * The first rule of the target that matches and fires. A matching rule with `times` left
   * fires until they run out; with a probability it draws one number from its seeded
   * generator per match, so the same seed gives the same pattern of fires.
   */
  private fire(target: 'http' | 'smtp', matches: (l: Live) => boolean, sender: string | null): FiredFault | null {
    for (const l of this.live) {
      const rule = l.rule;
      if (rule.target !== target || rule.remaining === 0 || !matches(l)) continue;
      rule.matched++;
      if (l.next && l.next() >= rule.probability!) continue;
      let retryAfterSeconds = 0;
      if (l.buckets && rule.action.type === 'rate_limit') {
        const key = sender ?? '';
        let bucket = l.buckets.get(key);
        if (!bucket) l.buckets.set(key, (bucket = new TokenBucket(rule.action.rate, rule.action.burst!, this.clock.now().getTime())));
        const waitMs = bucket.take(this.clock.now().getTime());
        // A token was there: this request goes on (and a later rule may still fire).
        if (waitMs === 0) continue;
        retryAfterSeconds = Math.max(1, Math.ceil(waitMs / 1000));
      }
      rule.fired++;
      if (rule.remaining !== null) rule.remaining--;
      for (const listener of this.listeners) listener({ target, rule, action: rule.action });
      if (rule.action.type === 'rate_limit') return { ...rule.action, rule: rule.id, retryAfterSeconds };
      return { ...rule.action, rule: rule.id };
    }
    return null;
  }

  private restoreConfigured(): void {
    const specs = this.configured.map((spec, i) => ({ ...spec, id: spec.id ?? `config-${i + 1}` }));
    // A rule added through the API under a configured rule's id gives way to the configured one.
    const taken = new Set(specs.map((spec) => spec.id));
    this.live = this.live.filter((l) => l.rule.source !== 'config' && !taken.has(l.rule.id));
    const configured = specs.map((spec) => this.add(spec, 'config'));
    // Configured rules come first, in file order, as they did at start-up.
    const ids = new Set(configured.map((r) => r.id));
    this.live.sort((a, b) => Number(ids.has(b.rule.id)) - Number(ids.has(a.rule.id)));
  }
}

/**
 * A token bucket: holds up to `burst` tokens, gains `rate` a second, and each request takes
 * one. Time is the sandbox clock's, so advancing the clock refills it; a clock moved back
 * (a reset to real time) refills nothing for the jump and counts on from the new time.
 */
export class TokenBucket {
  private tokens: number;

  constructor(
    private readonly rate: number,
    private readonly burst: number,
    private lastMs: number,
  ) {
    this.tokens = burst;
  }

  /** Takes a token at `nowMs`: 0 when there was one, else the milliseconds until there is. */
  take(nowMs: number): number {
    if (nowMs > this.lastMs) this.tokens = Math.min(this.burst, this.tokens + ((nowMs - this.lastMs) / 1000) * this.rate);
    this.lastMs = nowMs;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return 0;
    }
    return Math.ceil(((1 - this.tokens) / this.rate) * 1000);
  }
}

/** A small seeded generator (mulberry32): numbers in [0, 1), the same sequence for a seed. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
