import { z } from 'zod';
import { configObject } from './config-object';

/**
 * docs/tracing.md: OpenTelemetry traces, off by default. The `tracing` section of the file and
 * the standard OpenTelemetry variables (OTEL_EXPORTER_OTLP_ENDPOINT and the others below) turn
 * them on; `tracing.enabled: false` or OTEL_SDK_DISABLED / OTEL_TRACES_EXPORTER=none keep them off.
 */

const httpUrl = z
  .string()
  .url()
  .refine((value) => /^https?:\/\//i.test(value), 'must be an http:// or https:// URL');

export const TracingSectionSchema = configObject({
  // Absent: on when `endpoint` or an OTLP endpoint variable is set.
  enabled: z.boolean().optional(),
  // The OTLP/HTTP base address (as OTEL_EXPORTER_OTLP_ENDPOINT): spans go to <endpoint>/v1/traces.
  endpoint: httpUrl.optional(),
  // Sent with every export (a collector's or a vendor's credentials), beside OTEL_EXPORTER_OTLP_HEADERS.
  headers: z.record(z.string()).default({}),
  service_name: z.string().min(1).optional(),
  // The share of new traces recorded; a client's `traceparent` decides for the traces it continues.
  sample_ratio: z.number().min(0).max(1).default(1),
  // Prompts and replies in spans (gen_ai.input.messages, gen_ai.output.messages).
  capture_message_content: z.boolean().default(false),
});

export type TracingSection = z.output<typeof TracingSectionSchema>;

/** What the gateway's tracing runs with (server/tracing/start-tracing.ts). */
export interface TracingSettings {
  enabled: boolean;
  /** The OTLP/HTTP traces URL. */
  url: string;
  headers: Record<string, string>;
  serviceName: string;
  sampleRatio: number;
  captureMessageContent: boolean;
}

const DEFAULT_TRACES_URL = 'http://localhost:4318/v1/traces';
const TRACES_PATH = '/v1/traces';

/** The file's section and the environment's OpenTelemetry variables, resolved once at start. */
export function tracingSettings(section: TracingSection, environment: Readonly<Record<string, unknown>>): TracingSettings {
  const variable = (name: string): string | undefined => {
    const value = environment[name];
    return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
  };
  const tracesEndpoint = variable('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const baseEndpoint = variable('OTEL_EXPORTER_OTLP_ENDPOINT');
  const disabled = variable('OTEL_SDK_DISABLED')?.toLowerCase() === 'true' || variable('OTEL_TRACES_EXPORTER')?.toLowerCase() === 'none';
  const endpointGiven = section.endpoint !== undefined || tracesEndpoint !== undefined || baseEndpoint !== undefined;
  const url =
    section.endpoint !== undefined
      ? withTracesPath(section.endpoint)
      : (tracesEndpoint ?? (baseEndpoint !== undefined ? withTracesPath(baseEndpoint) : DEFAULT_TRACES_URL));
  return {
    enabled: !disabled && (section.enabled ?? endpointGiven),
    url,
    headers: section.headers,
    serviceName: section.serviceName ?? variable('OTEL_SERVICE_NAME') ?? 'model-gateway',
    sampleRatio: section.sampleRatio,
    captureMessageContent:
      section.captureMessageContent || variable('OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT')?.toLowerCase() === 'true',
  };
}

function withTracesPath(base: string): string {
  return base.replace(/\/+$/, '') + TRACES_PATH;
}
