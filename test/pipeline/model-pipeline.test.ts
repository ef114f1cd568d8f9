import express from 'express';
import pino from 'pino';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { rateLimited } from '../../server/errors/gateway-error';
import { createGatewayMetrics } from '../../server/metrics/gateway-metrics';
import { AccessReport } from '../../server/pipeline/access-report';
import { openAiErrorFormat, type ErrorFormat } from '../../server/pipeline/error-formats';
import { createFrontDispatcher } from '../../server/pipeline/front-dispatcher';
import { ModelPipeline, modelRoute } from '../../server/pipeline/model-pipeline';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway';

/**
 * The model pipeline on routes of its own (what /v1/messages-like routes will be): the stage
 * order, the key from `x-api-key` where a route accepts it, the route's error format, the
 * context's headers on every reply, and the front dispatcher's split.
 */
const anthropicErrors: ErrorFormat = (error) => ({ type: 'error', error: { type: error.type, message: error.message } });
const EchoSchema = z.object({ text: z.string().min(1), nested: z.object({ flag: z.boolean() }).optional() });
const EchoReplySchema = z.object({ echoed: EchoSchema, keyId: z.string(), requestId: z.string() });

let gw: TestGateway;
let key: string;
let http: supertest.Agent;

beforeAll(async () => {
  gw = await startTestGateway();
  ({ key } = await gw.createKey(await gw.createAccount()));
  const routes = [
    modelRoute({
      contract: { method: 'POST', path: '/v1/echo', body: EchoSchema, responses: { 200: EchoReplySchema } },
      handle: async ({ body, context, key: caller }) => {
        context.addHeaders({ 'x-ratelimit-limit-requests': '7' });
        if (body.text === 'limited') throw rateLimited('Slow down.', { 'retry-after': '3' });
        if (body.text === 'bug') throw new Error('a bug');
        return { echoed: body, keyId: caller.id, requestId: context.requestId };
      },
      errorFormat: anthropicErrors,
      acceptsXApiKey: true,
    }),
    modelRoute({
      contract: { method: 'POST', path: '/v1/stream', body: EchoSchema, responses: { 200: z.never() } },
      handle: async ({ reply }) => {
        reply.startStream({ 'content-type': 'text/event-stream' });
        reply.write('data: one\n\n');
        reply.end('data: [DONE]\n\n');
        return null;
      },
      errorFormat: openAiErrorFormat,
    }),
  ];
  const pipeline = new ModelPipeline({
    routes,
    keys: gw.gateway.keys,
    bodyLimitBytes: 1024,
    generateId: () => 'generated-id',
    report: new AccessReport(pino({ level: 'silent' }), createGatewayMetrics()),
    logger: pino({ level: 'silent' }),
    clientIp: (request) => request.socket.remoteAddress,
  });
  const app = express();
  app.use((request, response) => void response.status(404).json({ via: 'express', method: request.method, url: request.url }));
  http = supertest.agent(createFrontDispatcher(pipeline, app));
});
afterAll(() => gw?.close());

describe('model pipeline', () => {
  it('runs a route: the validated body (nested unknown keys stripped, as zod does), the key, the request id', async () => {
    const response = await http
      .post('/v1/echo')
      .set('authorization', `Bearer ${key}`)
      .set('x-request-id', 'trace-1')
      .send({ text: 'hi', nested: { flag: true, extra: 1 } });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ echoed: { text: 'hi', nested: { flag: true } }, requestId: 'trace-1' });
    expect(response.body.echoed.nested).not.toHaveProperty('extra');
    expect(response.headers['x-request-id']).toBe('trace-1');
    expect(response.headers['x-ratelimit-limit-requests']).toBe('7');
    expect(response.headers['x-gateway-overhead-ms']).toMatch(/^\d+\.\d{2}$/);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
  });

  it('takes the key from x-api-key where the route accepts it, and only there', async () => {
    const echoed = await http.post('/v1/echo').set('x-api-key', key).send({ text: 'hi' });
    expect(echoed.status).toBe(200);
    const streamed = await http.post('/v1/stream').set('x-api-key', key).send({ text: 'hi' });
    expect(streamed.status).toBe(401);
    expect(streamed.body.error).toMatchObject({ type: 'authentication_error', code: 'missing_api_key' });
  });

  it("answers in the route's error format, with the error's and the context's headers", async () => {
    const missing = await http.post('/v1/echo').send({ text: 'hi' });
    expect(missing.status).toBe(401);
    expect(missing.body).toEqual({ type: 'error', error: { type: 'authentication_error', message: expect.stringContaining('x-api-key') } });
    const limited = await http.post('/v1/echo').set('x-api-key', key).send({ text: 'limited' });
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toBe('3');
    expect(limited.headers['x-ratelimit-limit-requests']).toBe('7');
    expect(limited.body).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
    const bug = await http.post('/v1/echo').set('x-api-key', key).send({ text: 'bug' });
    expect(bug.status).toBe(500);
    expect(bug.headers['x-should-retry']).toBe('false');
    expect(bug.body.error.message).toContain('generated-id');
  });

  it('runs the stages in order: body, then auth, then validation', async () => {
    // An unreadable body is refused before the key is looked at, a wrong body after.
    const unreadable = await http.post('/v1/echo').set('content-type', 'application/json').send('{"text":');
    expect(unreadable.status).toBe(400);
    const invalid = await http.post('/v1/echo').send({ text: '' });
    expect(invalid.status).toBe(401);
    const invalidWithKey = await http.post('/v1/echo').set('x-api-key', key).send({ text: '' });
    expect(invalidWithKey.status).toBe(400);
    expect(invalidWithKey.body.error.type).toBe('invalid_request_error');
  });

  it('lets a handler answer itself (a stream)', async () => {
    const response = await http.post('/v1/stream').set('authorization', `Bearer ${key}`).send({ text: 'hi' });
    expect(response.status).toBe(200);
    expect(response.text).toBe('data: one\n\ndata: [DONE]\n\n');
    expect(response.headers['x-gateway-overhead-ms']).toMatch(/^\d+\.\d{2}$/);
  });
});

describe('front dispatcher', () => {
  it('sends a POST to a model path to the pipeline, a query string, a trailing slash or another case included', async () => {
    for (const path of ['/v1/echo', '/v1/echo?beta=true', '/v1/echo/', '/V1/Echo']) {
      const response = await http.post(path).set('x-api-key', key).send({ text: 'hi' });
      expect(response.status, path).toBe(200);
    }
  });

  it('sends everything else to the Express app', async () => {
    const get = await http.get('/v1/echo');
    expect(get.body).toEqual({ via: 'express', method: 'GET', url: '/v1/echo' });
    const other = await http.post('/v1/echo/more').send({});
    expect(other.body).toMatchObject({ via: 'express', method: 'POST' });
  });
});

describe('the gateway behind its dispatcher', () => {
  it('answers a GET on a model path 405 (the Express app), a POST with a query string through the pipeline', async () => {
    const get = await gw.http.get('/v1/embeddings');
    expect(get.status).toBe(405);
    expect(get.body.error.code).toBe('method_not_allowed');
    const post = await gw.http
      .post('/v1/chat/completions?beta=true')
      .set('authorization', `Bearer ${key}`)
      .send({ model: 'mock-chat', messages: [{ role: 'user', content: 'hi' }] });
    expect(post.status).toBe(200);
    expect(post.body.object).toBe('chat.completion');
    expect(gw.gateway.app.express).toBeTypeOf('function');
  });
});
