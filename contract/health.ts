import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { errorResponses } from './errors.js';

const c = initContract();

export const ReadinessSchema = z.object({
  status: z.enum(['ok', 'unavailable']),
  checks: z.record(z.enum(['ok', 'down', 'disabled'])),
});

export const healthContract = c.router({
  health: {
    method: 'GET',
    path: '/healthz',
    summary: 'Liveness: the process is up',
    responses: { 200: z.object({ status: z.literal('ok') }), ...errorResponses },
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
    responses: { 200: z.record(z.unknown()) },
    metadata: { auth: 'none' } as const,
  },
});
