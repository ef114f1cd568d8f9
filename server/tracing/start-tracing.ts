import type { TracingSettings } from '../config/tracing-section';
import type { Tracing } from './request-trace';

/**
 * docs/tracing.md: the gateway's tracing when traces are on, else null. The OpenTelemetry SDK
 * is imported here, at start and only then: a gateway with traces off never loads it.
 */
export async function startTracing(settings: TracingSettings, version: string): Promise<Tracing | null> {
  if (!settings.enabled) return null;
  const { createOtelTracing } = await import('./otel-tracing');
  return createOtelTracing(settings, version);
}
