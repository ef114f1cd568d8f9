import { afterAll, beforeAll, expect, it } from 'vitest';
import { RequestContext } from '../../server/pipeline/request-context';
import { EXPORT_BATCH_SIZE, EXPORT_QUEUE_SIZE } from '../../server/tracing/otel-tracing';
import { startTracing } from '../../server/tracing/start-tracing';
import { startOtlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver';

/**
 * docs/tracing.md: a stopping gateway sends every span it holds, even with its export queue
 * full and a slow collector: each batch of the queue goes out at once, none refused by the
 * exporter's limit of exports under way.
 */
let receiver: OtlpReceiver;

beforeAll(async () => {
  receiver = await startOtlpReceiver({ answerDelayMs: 300 });
});

afterAll(async () => {
  await receiver.close();
});

it('exports a full queue and the batch under way at shutdown, with a slow collector', async () => {
  const tracing = await startTracing(
    {
      enabled: true,
      url: `${receiver.endpoint}/v1/traces`,
      headers: {},
      serviceName: 'queue-test',
      sampleRatio: 1,
      captureMessageContent: false,
    },
    '0.0.0',
  );
  if (tracing === null) throw new Error('traces are on');
  // One span a request: the first batch leaves at once and waits for its answer, the rest
  // fill the queue to the brim.
  const requests = EXPORT_BATCH_SIZE + EXPORT_QUEUE_SIZE;
  for (let index = 0; index < requests; index++) {
    const context = new RequestContext();
    context.requestId = `req_${index}`;
    context.route = '/v1/chat/completions';
    tracing.startRequest(context, {}).end(context, { status: 200, aborted: false });
  }
  await tracing.shutdown();
  expect(receiver.spans).toHaveLength(requests);
  expect(new Set(receiver.spans.map((span) => span.attributes['gateway.request.id'])).size).toBe(requests);
}, 20_000);
