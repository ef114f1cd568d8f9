import { z } from 'zod';

/** The error envelope of docs/errors.md, on every route. */
export const ErrorBodySchema = z.object({
  error: z.object({
    message: z.string(),
    type: z.string(),
    param: z.string().nullable(),
    code: z.string().nullable(),
  }),
});
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
