import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfigText } from '../../server/config/load-config';

/** The `tracing` section and the OpenTelemetry variables (docs/tracing.md, "Turning traces on"). */
const file = (tracing = '') => `${tracing}
providers:
  mock: { type: mock }
models:
  - id: chat-a
    provider: mock
    capabilities: [chat]
    context_window: 8000
    pricing: { input_per_million: 0, output_per_million: 0 }
`;

const tracingOf = (text: string, env: Record<string, string> = {}) => parseConfigText(text, 'gateway.yaml', env).tracing;

describe('tracing settings', () => {
  it('are off by default, with the defaults of the OTLP/HTTP exporter and no content', () => {
    expect(tracingOf(file())).toEqual({
      enabled: false,
      url: 'http://localhost:4318/v1/traces',
      headers: {},
      serviceName: 'model-gateway',
      sampleRatio: 1,
      captureMessageContent: false,
    });
  });

  it('are on with OTEL_EXPORTER_OTLP_ENDPOINT (traces under /v1/traces) or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (as given)', () => {
    expect(tracingOf(file(), { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' })).toMatchObject({
      enabled: true,
      url: 'http://collector:4318/v1/traces',
    });
    expect(
      tracingOf(file(), {
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://traces.example.com/otlp/traces',
      }),
    ).toMatchObject({ enabled: true, url: 'https://traces.example.com/otlp/traces' });
  });

  it('are on with an endpoint in the file, which wins over the variables', () => {
    const text = file('tracing:\n  endpoint: http://tempo:4318\n  headers: { x-scope-orgid: team-a }\n  sample_ratio: 0.25');
    expect(tracingOf(text, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toMatchObject({
      enabled: true,
      url: 'http://tempo:4318/v1/traces',
      headers: { 'x-scope-orgid': 'team-a' },
      sampleRatio: 0.25,
    });
  });

  it('stay off with enabled: false, OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none', () => {
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    expect(tracingOf(file('tracing:\n  enabled: false'), env).enabled).toBe(false);
    expect(tracingOf(file(), { ...env, OTEL_SDK_DISABLED: 'true' }).enabled).toBe(false);
    expect(tracingOf(file(), { ...env, OTEL_TRACES_EXPORTER: 'none' }).enabled).toBe(false);
  });

  it('take the service name and the content switch from the file or the standard variables', () => {
    expect(
      tracingOf(file(), { OTEL_SERVICE_NAME: 'gateway-eu', OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true' }),
    ).toMatchObject({ serviceName: 'gateway-eu', captureMessageContent: true });
    expect(tracingOf(file('tracing:\n  service_name: edge\n  capture_message_content: true'))).toMatchObject({
      serviceName: 'edge',
      captureMessageContent: true,
    });
    expect(tracingOf(file(), { OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'false' }).captureMessageContent).toBe(false);
  });

  it('refuse an endpoint that is not an http(s) address, in the file or the environment', () => {
    expect(() => tracingOf(file('tracing:\n  endpoint: collector:4317'))).toThrow(ConfigError);
    expect(() => tracingOf(file('tracing:\n  sample_ratio: 2'))).toThrow(ConfigError);
    expect(() => tracingOf(file(), { OTEL_EXPORTER_OTLP_ENDPOINT: 'grpc://collector:4317' })).toThrow(
      /environment: OTEL_EXPORTER_OTLP_ENDPOINT: must be an http/,
    );
  });
});
