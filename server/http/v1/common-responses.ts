import { z } from 'zod';
import { detail, type ResponseDoc } from '../openapi/route-doc.ts';
import { Detail, FieldErrors, NonFieldErrors } from '../openapi/schemas.ts';
import * as T from '../../service-texts.ts';

/** What every /v1 endpoint may answer besides its own answers (docs/api-contract.md §1, §2), for the OpenAPI document. */

/** Every POST (and DELETE) body comes as JSON, form-encoded or multipart (docs/api-contract.md §1). */
export const V1_BODY_TYPES = ['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data'] as const;

export const v1Responses: Record<number, ResponseDoc> = {
  401: detail('Missing, malformed, unknown or revoked key. Header `WWW-Authenticate: Api-Key`.', T.CREDENTIALS, {
    'WWW-Authenticate': { schema: { type: 'string', const: 'Api-Key' } },
  }),
  403: detail('Valid key whose team does not have the email flows feature.', T.CREDENTIALS),
  405: detail('Known path, another method; the `Allow` header lists the methods.', T.methodNotAllowed('PUT'), { Allow: { schema: { type: 'string' } } }),
  // Only when a fault rule fires (see /api/faults); a 429 status fault answers with the daily-limit
  // body, a rate_limit fault with {"error": "Request was throttled. ..."} and Retry-After.
  500: detail('Only when a fault rule injects it.', T.INTERNAL_ERROR),
  503: detail('Only when a fault rule injects it.', T.SERVICE_UNAVAILABLE),
};

/** The request body's own problems (docs/api-contract.md §1): over the size limit, another content type. */
export const v1BodyResponses: Record<number, ResponseDoc> = {
  413: detail('Body over the size limit (default 25 MB).', T.bodyTooLarge(26214400)),
  415: detail('Another content type.', T.unsupportedMediaType('text/plain')),
};

/** A 400 of a body endpoint: field errors, malformed JSON or a JSON body that is not an object. */
export const fieldErrorsDoc: ResponseDoc = {
  description: 'Field errors, malformed JSON (`{"detail": "JSON parse error - <reason>"}`) or a JSON body that is not an object.',
  body: z.union([FieldErrors, Detail, NonFieldErrors]),
};

/** A paginated list's `page` (docs/api-contract.md §3: page size 20, sandbox decision) and its 404. */
export const PAGE_PARAMETER = {
  name: 'page',
  description: 'Page number from 1, or "last". Page size 20. Out of range or not a number: 404 {"detail": "Invalid page."}.',
};
export const invalidPage = detail('Page out of range or not a number.', T.INVALID_PAGE);
