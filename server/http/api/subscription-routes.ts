import type Router from '@koa/router';
import type { Context } from 'koa';
import { wireTime } from '../../domain/flows/clock.ts';
import type { Sandbox } from '../../domain/sandbox.ts';
import type { SubscriptionRecord, SubscriptionStatus } from '../../storage/records.ts';
import { detail } from '../errors.ts';

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 500;
const STATUSES: readonly SubscriptionStatus[] = ['active', 'completed', 'cancelled'];

/** Every team's flow subscriptions with their step timeline (no API key), newest first. */
export function mountSubscriptionRoutes(router: Router, sandbox: Sandbox): void {
  const { subscriptions } = sandbox;

  router.get('/api/subscriptions', (ctx) => {
    const limit = intParam(ctx, 'limit', DEFAULT_LIMIT, 1, MAX_LIMIT);
    const offset = intParam(ctx, 'offset', 0, 0, Number.MAX_SAFE_INTEGER);
    const status = text(ctx, 'status');
    if (status !== undefined && !STATUSES.includes(status as SubscriptionStatus)) throw detail(400, `status must be one of ${STATUSES.join(', ')}.`);
    const filter = { team: text(ctx, 'team'), email: text(ctx, 'email'), status: status as SubscriptionStatus | undefined };
    const { total, items } = subscriptions.page(filter, offset, limit);
    ctx.body = { total, offset, limit, subscriptions: items.map((s) => subscriptionSummary(sandbox, s)) };
  });
}

/** A subscription as the sandbox API (and the realtime `subscription.changed` frame) shows it. */
export function subscriptionSummary(sandbox: Sandbox, s: SubscriptionRecord) {
  return {
    id: s.seq,
    team: s.team,
    trigger: s.flowTrigger,
    flow_name: s.flowName,
    email: s.email,
    status: s.status,
    current_step_order: s.currentStepOrder,
    next_send_date: s.status === 'active' && s.nextSendDate !== null ? wireTime(s.nextSendDate) : null,
    created_at: wireTime(s.createdAt),
    updated_at: wireTime(s.updatedAt),
    steps: sandbox.subscriptions.timeline(s),
  };
}

function text(ctx: Context, name: string): string | undefined {
  return ctx.URL.searchParams.get(name)?.trim() || undefined;
}

function intParam(ctx: Context, name: string, fallback: number, min: number, max: number): number {
  const raw = ctx.URL.searchParams.get(name);
  if (raw === null || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || value < min || value > max) throw detail(400, `${name} must be a whole number from ${min} to ${max}.`);
  return value;
}
