import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { errorResponses } from './errors.js';

const c = initContract();

export const ReadinessSchema = z
  .object({
    status: z.enum(['ok', 'unavailable']).describe('`ok` when every enabled dependency is reachable.'),
    checks: z.record(z.enum(['ok', 'down', 'disabled'])).describe('Each dependency (database, redis) and its state.'),
  })
  .describe('Whether the gateway can serve requests.');

export const healthContract = c.router({
  health: {
    method: 'GET',
    path: '/healthz',
    summary: 'Liveness: the process is up',
    responses: { 200: z.object({ status: z.literal('ok').describe('Always `ok` while the process runs.') }), ...errorResponses },
    metadata: { auth: 'none' } as const,
  },
  ready: {
    method: 'GET',
    path: '/readyz',
    summary: 'Readiness: the database (and Redis, when configured) are reachable',
    responses: { 200: ReadinessSchema, 503: ReadinessSchema },
    metadata: { auth: 'none' } as const,
  },
  openapi: {
    method: 'GET',
    path: '/v1/openapi.json',
    summary: 'This OpenAPI document',
    responses: { 200: z.record(z.unknown()).describe('An OpenAPI 3.1 document.') },
    metadata: { auth: 'none' } as const,
  },
});
