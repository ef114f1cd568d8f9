import { z } from 'zod';

/**
 * The environment variables the gateway reads at start (docs/configuration.md). An unset or
 * blank variable means its default. Other variables pass through untouched: providers read
 * their keys by the name the file gives (`api_key_env`).
 */

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export type Environment = Record<string, string | undefined>;

const DEFAULT_DATABASE_URL = 'file:./data/gateway.db';

const variable = z
  .string()
  .optional()
  .transform((value) => (value === undefined || value.trim() === '' ? undefined : value));

function isHttpUrlOrUnset(url: string | undefined): boolean {
  return url === undefined || /^https?:\/\/[^\s/]+(\/\S*)?$/.test(url);
}

export const EnvironmentSchema = z
  .object({
    PORT: variable.transform((text = '8080', context) => {
      const port = /^\d+$/.test(text) ? Number(text) : Number.NaN;
      // 0: any free port, chosen by the system and logged with `gateway listening` (as `serve --port 0`).
      if (!(port >= 0 && port <= 65_535)) {
        context.addIssue({ code: z.ZodIssueCode.custom, message: `must be a port number from 0 to 65535, got "${text}"` });
      }
      return port;
    }),
    HOST: variable.transform((host) => host ?? '0.0.0.0'),
    /** `file:…` = SQLite, `postgres://…` = Postgres. */
    DATABASE_URL: variable
      .transform((url) => url ?? DEFAULT_DATABASE_URL)
      .refine((url) => /^(file:|postgres(ql)?:\/\/)/.test(url), 'must start with file: (SQLite) or postgres:// (Postgres)'),
    REDIS_URL: variable
      .refine((url) => url === undefined || /^rediss?:\/\//.test(url), 'must start with redis:// or rediss://')
      .transform((url) => url ?? null),
    GATEWAY_ADMIN_TOKEN: variable.transform((token) => token ?? null),
    /** The address users reach the gateway at (login links); unset = http://localhost:PORT. */
    GATEWAY_PUBLIC_URL: variable
      .transform((url) => url?.replace(/\/+$/, ''))
      .refine(
        (url) => url === undefined || /^https?:\/\/[^\s/]+(\/\S*)?$/.test(url),
        'must be an http:// or https:// address, e.g. https://gateway.example.com',
      )
      .transform((url) => url ?? null),
    /** Replaces `usage.journal_dir` (docs/usage-durability.md). */
    USAGE_JOURNAL_DIR: variable,
    /** When set, GET /metrics needs it as a bearer token; open otherwise. */
    GATEWAY_METRICS_TOKEN: variable.transform((token) => token ?? null),
    /** docs/tracing.md: the OTLP/HTTP address; either one set turns traces on. */
    OTEL_EXPORTER_OTLP_ENDPOINT: variable.refine(isHttpUrlOrUnset, 'must be an http:// or https:// address'),
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: variable.refine(isHttpUrlOrUnset, 'must be an http:// or https:// address'),
    LOG_LEVEL: variable.transform((text = 'info', context): LogLevel => {
      const level = LOG_LEVELS.find((candidate) => candidate === text.toLowerCase());
      if (!level) {
        context.addIssue({ code: z.ZodIssueCode.custom, message: `must be one of ${LOG_LEVELS.join(', ')}, got "${text}"` });
      }
      return level ?? 'info';
    }),
  })
  .passthrough();
