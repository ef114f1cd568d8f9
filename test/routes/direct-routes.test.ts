import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { serveDirectRoutes } from '../../server/routes/direct-routes';

/**
 * serveDirectRoutes: the exact POST paths skip Express's router but get the same stages,
 * handler and error handler; everything else is Express's as before.
 */
function appWith(handler: RequestHandler) {
  const app = express();
  const stages: RequestHandler[] = [
    (_request, response, next) => {
      response.setHeader('x-stage', 'one');
      next();
    },
    (request, response, next) => {
      response.locals.seen = `${request.method} ${request.route?.path ?? 'no route'}`;
      next();
    },
  ];
  for (const stage of stages) app.use(stage);
  app.post('/v1/thing', (_request, response) => void response.json({ via: 'express', seen: response.locals.seen }));
  app.use((_request, response) => void response.status(404).json({ error: 'not found' }));
  const onError: ErrorRequestHandler = (error: Error, _request, response, _next) => void response.status(500).json({ error: error.message });
  app.use(onError);
  serveDirectRoutes(app, [{ path: '/v1/thing', handler }], stages, onError);
  return app;
}

const answering: RequestHandler = (request, response) => void response.json({ via: 'direct', seen: response.locals.seen, ip: request.ip, res: request.res === response });

describe('direct routes', () => {
  it('runs the stages then the handler for a POST to the exact path, with what Express would have set', async () => {
    const response = await request(appWith(answering)).post('/v1/thing').send({});
    expect(response.status).toBe(200);
    expect(response.headers['x-stage']).toBe('one');
    expect(response.body).toMatchObject({ via: 'direct', seen: 'POST /v1/thing', res: true });
    expect(response.body.ip).toMatch(/127\.0\.0\.1/);
  });

  it('leaves a query string, a trailing slash, another case and other methods to Express', async () => {
    const app = appWith(answering);
    for (const path of ['/v1/thing?x=1', '/v1/thing/', '/V1/Thing']) {
      const response = await request(app).post(path).send({});
      expect(response.body.via, path).toBe('express');
      expect(response.headers['x-stage']).toBe('one');
    }
    expect((await request(app).get('/v1/thing')).status).toBe(404);
  });

  it('sends errors to the error handler: thrown, passed to next, and a handler that answers nothing', async () => {
    const thrown = await request(appWith(() => {
      throw new Error('thrown');
    })).post('/v1/thing');
    expect(thrown.status).toBe(500);
    expect(thrown.body).toEqual({ error: 'thrown' });
    const passed = await request(appWith((_request, _response, next) => next(new Error('passed')))).post('/v1/thing');
    expect(passed.body).toEqual({ error: 'passed' });
    const nothing = await request(appWith((_request, _response, next) => next())).post('/v1/thing');
    expect(nothing.status).toBe(500);
    expect(nothing.body.error).toMatch(/without answering/);
  });
});
