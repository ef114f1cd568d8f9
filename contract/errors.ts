import { z } from 'zod';

/** The error envelope of docs/errors.md, on every route. */
export const ErrorBodySchema = z
  .object({
    error: z
      .object({
        message: z.string().describe('What went wrong and what to do, for people.'),
        type: z
          .string()
          .describe('The kind of error, e.g. `invalid_request_error`, `authentication_error`, `rate_limit_error`, `upstream_error`.'),
        param: z.string().nullable().describe('The request field at fault, e.g. `messages[0].role`; null when none is.'),
        code: z.string().nullable().describe('A stable code for programs, e.g. `missing_field`, `model_not_found`.'),
      })
      .describe('The error.'),
  })
  .describe('The error body of every route (docs/errors.md).');
export type ErrorBodyShape = z.infer<typeof ErrorBodySchema>;

/** The statuses any route may answer with the envelope (docs/errors.md). */
export const errorResponses = {
  400: ErrorBodySchema,
  401: ErrorBodySchema,
  403: ErrorBodySchema,
  404: ErrorBodySchema,
  405: ErrorBodySchema,
  413: ErrorBodySchema,
  415: ErrorBodySchema,
  429: ErrorBodySchema,
  500: ErrorBodySchema,
  501: ErrorBodySchema,
  502: ErrorBodySchema,
  503: ErrorBodySchema,
  504: ErrorBodySchema,
} as const;
