// Errors the domain code throws. They know nothing of HTTP or GraphQL: the REST error handler
// (platform/http/error-handler.ts) and the GraphQL formatter (platform/graphql/errors.ts) each
// translate them into their own shapes, so both doors report the same failure the same way.

export type ErrorCode =
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'BAD_USER_INPUT'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'RATE_LIMITED'
  | 'SERVICE_UNAVAILABLE'
  | 'BAD_GATEWAY'
  | 'GATEWAY_TIMEOUT';

export abstract class DomainError extends Error {
  abstract readonly code: ErrorCode;
  /** Machine-readable detail beyond the code (e.g. `{reason: 'mfa_required'}`): GraphQL extensions, REST body members. */
  readonly extensions?: Readonly<Record<string, unknown>>;
}

/** The spec's 401 text: never says which part of the credentials was wrong. */
export const CREDENTIALS_MESSAGE = 'Could not validate credentials';

export class AuthenticationError extends DomainError {
  readonly code = 'UNAUTHENTICATED';
  constructor(message = CREDENTIALS_MESSAGE) {
    super(message);
  }
}

export class ForbiddenError extends DomainError {
  readonly code = 'FORBIDDEN';
  constructor(message = 'Admin access required') {
    super(message);
  }
}

export class NotFoundError extends DomainError {
  readonly code = 'NOT_FOUND';
}

export class ConflictError extends DomainError {
  readonly code = 'CONFLICT';
}

/** One problem with the input, in FastAPI's (pydantic's) terms. */
export interface InputIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

export class InputError extends DomainError {
  readonly code = 'BAD_USER_INPUT';
  constructor(readonly issues: InputIssue[]) {
    super(issues.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; '));
  }
  static of(loc: (string | number)[], msg: string, type = 'value_error'): InputError {
    return new InputError([{ loc, msg, type }]);
  }
}

export class PayloadTooLargeError extends DomainError {
  readonly code = 'PAYLOAD_TOO_LARGE';
  constructor(message = 'Request body too large') {
    super(message);
  }
}

/** The input is of a kind the service does not read (an upload that is neither an image nor a PDF). */
export class UnsupportedMediaTypeError extends DomainError {
  readonly code = 'UNSUPPORTED_MEDIA_TYPE';
}

/** Too many attempts: try again after `retryAfterSeconds`. */
export class RateLimitedError extends DomainError {
  readonly code = 'RATE_LIMITED';
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

export class UnavailableError extends DomainError {
  readonly code = 'SERVICE_UNAVAILABLE';
  constructor(
    message = 'Service temporarily unavailable',
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}
