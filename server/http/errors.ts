import type { Context, Next } from 'koa';
import { wireTime } from '../api-representations.ts';
import * as T from '../service-texts.ts';
import {
  AlreadySubscribed,
  ClockCannotMoveBack,
  ClockOutOfRange,
  DailyLimitReached,
  DamagedContent,
  FlowHasNoSteps,
  FlowNotFound,
  InvalidEncryptionKey,
  NotFound,
  NotSubscribed,
  StorageError,
  RelayFailed,
  ReleaseRefused,
  TemplateRefused,
} from '../domain/errors.ts';

/** An error that owns its exact wire response. Thrown anywhere, rendered once, below. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(`HTTP ${status}`);
  }
}

export const detail = (status: number, message: string, headers?: Record<string, string>) => new HttpError(status, { detail: message }, headers);

export const notFound = () => detail(404, T.NOT_FOUND);

/** Field errors: {"<field>": ["<message>"]} (docs/api-contract.md §1). */
export const fieldErrors = (errors: Record<string, string[]>) => new HttpError(400, errors);

/** How each domain refusal reads on the wire (docs/api-contract.md §3–§5). */
function fromDomain(error: unknown): HttpError | undefined {
  if (error instanceof HttpError) return error;
  if (error instanceof NotFound) return notFound();
  if (error instanceof DailyLimitReached) return new HttpError(429, { error: T.dailyLimitReached(error.limit) });
  if (error instanceof FlowNotFound) return detail(400, T.flowNotFound(error.trigger));
  if (error instanceof FlowHasNoSteps) return detail(400, T.flowHasNoSteps(error.flowName));
  if (error instanceof AlreadySubscribed) return detail(400, T.alreadySubscribed(error.email, error.flowName));
  if (error instanceof NotSubscribed) return detail(400, T.notSubscribed(error.email, error.flowName));
  if (error instanceof InvalidEncryptionKey) return detail(400, T.INVALID_ENCRYPTION_KEY);
  if (error instanceof ClockCannotMoveBack) return detail(400, `The sandbox clock cannot move backwards: it is already at ${wireTime(error.now)}.`);
  if (error instanceof ClockOutOfRange) return detail(400, 'The sandbox clock cannot go past 9999-12-31T23:59:59Z.');
  if (error instanceof TemplateRefused) return detail(400, error.message);
  if (error instanceof ReleaseRefused) return detail(error.reason === 'no-relay' ? 409 : 403, error.message);
  if (error instanceof RelayFailed) return detail(502, error.message);
  if (error instanceof StorageError) return detail(507, storageDetail(error));
  if (error instanceof DamagedContent)
    return detail(
      410,
      `This part of the capture cannot be read back: ${error.reason} (${error.path}). The rest of the capture is intact; delete it to get rid of it.`,
    );
  return undefined;
}

/**
 * 507 Insufficient Storage (a sandbox decision): nothing was stored, and the body says what
 * failed, where, and what to do. The store keeps trying and heals by itself.
 */
function storageDetail(error: StorageError): string {
  const hint =
    error.problem === 'full'
      ? ' Free space (delete captures: DELETE /api/messages, or lower --max-messages) and try again.'
      : error.problem === 'read-only'
        ? ' Make the data directory writable; Pigeonhole picks it up by itself.'
        : ' Pigeonhole retries by itself; see /readyz.';
  return `Not stored: ${error.reason} (${error.path}).${hint}`;
}

export interface Logger {
  error(message: string, error?: unknown): void;
}

/**
 * Renders every error once. Known ones get their own body; anything else is logged and
 * becomes a JSON 500, never an HTML page or a stack trace.
 */
export function errorMiddleware(logger: Logger) {
  return async (ctx: Context, next: Next) => {
    try {
      await next();
    } catch (error) {
      const known = fromDomain(error);
      if (known) {
        ctx.status = known.status;
        ctx.set(known.headers);
        ctx.body = known.body;
        return;
      }
      logger.error(`${ctx.method} ${ctx.path} failed`, error);
      ctx.status = 500;
      ctx.body = { detail: T.INTERNAL_ERROR };
    }
  };
}
