import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { Gateway } from '../../server/gateway';
import { SPAN_KIND_CLIENT, SPAN_KIND_SERVER, type OtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver';

/** A client's trace (docs/tracing.md): its `traceparent` and its ids. */
export function clientTrace(): { traceId: string; spanId: string; traceparent: string } {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}

/**
 * The server span of a trace and its client spans, once the gateway ended the server span and
 * exported it: that happens when the response closes on the gateway's side, which may come just
 * after the client read the whole response.
 */
export async function spansOf(
  receiver: OtlpReceiver,
  gateway: Gateway,
  traceId: string,
): Promise<{ server: ReceivedSpan; clients: ReceivedSpan[] }> {
  const serverSpans = () => receiver.trace(traceId).filter((span) => span.kind === SPAN_KIND_SERVER);
  for (let round = 0; round < 100 && serverSpans().length === 0; round++) {
    await gateway.tracing?.flush();
    if (serverSpans().length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const servers = serverSpans();
  expect(servers).toHaveLength(1);
  return { server: servers[0] as ReceivedSpan, clients: receiver.trace(traceId).filter((span) => span.kind === SPAN_KIND_CLIENT) };
}
