/**
 * What the domain refuses. Each carries the facts its wire body needs; http/errors.ts renders
 * them in the shape the contract gives for the endpoint.
 */
class DomainError extends Error {}

export class NotFound extends DomainError {}

export class DailyLimitReached extends DomainError {
  constructor(readonly limit: number) {
    super(`daily limit of ${limit} reached`);
  }
}

export class FlowNotFound extends DomainError {
  constructor(readonly trigger: string) {
    super(`no flow ${trigger}`);
  }
}

export class FlowHasNoSteps extends DomainError {
  constructor(readonly flowName: string) {
    super(`flow ${flowName} has no steps`);
  }
}

export class AlreadySubscribed extends DomainError {
  constructor(
    readonly email: string,
    readonly flowName: string,
  ) {
    super(`${email} already subscribed to ${flowName}`);
  }
}

export class NotSubscribed extends DomainError {
  constructor(
    readonly email: string,
    readonly flowName: string,
  ) {
    super(`${email} not subscribed to ${flowName}`);
  }
}

export class InvalidEncryptionKey extends DomainError {}

/** The sandbox clock only moves forward (reset to real time aside). */
export class ClockCannotMoveBack extends DomainError {
  constructor(readonly now: Date) {
    super(`the sandbox clock is already at ${now.toISOString()}`);
  }
}

/** An instant past what the clock can represent on the wire (year 9999). */
export class ClockOutOfRange extends DomainError {}

/** An account template (or a request about one) that cannot be taken: the sentence says why. */
export class TemplateRefused extends DomainError {}

/** A release (POST /api/messages/{id}/release) that is not made: no relay, an address not allowed. */
export class ReleaseRefused extends DomainError {
  constructor(
    readonly reason: 'no-relay' | 'not-allowed',
    message: string,
  ) {
    super(message);
  }
}

/** The relay did not take a release (unreachable, refused, TLS failed): the sentence says what it answered. */
export class RelayFailed extends DomainError {}

export { DamagedContent, StorageError, storageError } from '../storage/errors.ts';
