import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import express from 'express';
import pino from 'pino';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorHandler } from '../../server/middleware/error-handler';
import { routeNotFound } from '../../server/middleware/route-not-found';
import { dashboardFiles } from '../../server/routes/dashboard-files';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway';
import { ensureDashboardBuilt } from './browser';

/** GET /dashboard/…: the built files, index.html for the app's own paths, the envelope otherwise. */
let directory: string;
let app: express.Express;

beforeAll(() => {
  directory = mkdtempSync(path.join(os.tmpdir(), 'gw-dashboard-'));
  mkdirSync(path.join(directory, 'assets'));
  writeFileSync(path.join(directory, 'index.html'), '<!doctype html><title>dashboard</title>');
  writeFileSync(path.join(directory, 'assets', 'index-abc123.js'), 'console.log(1)');
  app = express();
  app.use('/dashboard', dashboardFiles(directory));
  app.use(routeNotFound([{ method: 'GET', path: '/dashboard' }]));
  app.use(errorHandler(pino({ level: 'silent' })));
});
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe('dashboard files', () => {
  it.each(['/dashboard', '/dashboard/', '/dashboard/login', '/dashboard/accounts/acct_1/keys'])(
    '%s is the app page, never cached, locked down',
    async (url) => {
      const response = await supertest(app).get(url);
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toMatch(/^text\/html/);
      expect(response.text).toContain('<title>dashboard</title>');
      expect(response.headers['cache-control']).toBe('no-cache');
      expect(response.headers['content-security-policy']).toContain("default-src 'self'");
      expect(response.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(response.headers['x-frame-options']).toBe('DENY');
      expect(response.headers['x-content-type-options']).toBe('nosniff');
    },
  );

  it('serves hashed assets as immutable', async () => {
    const response = await supertest(app).get('/dashboard/assets/index-abc123.js');
    expect(response.status).toBe(200);
    expect(response.headers['cache-control']).toBe('public, max-age=31536000, immutable');
  });

  it('answers a missing file with the 404 envelope, other methods with 405', async () => {
    const missing = await supertest(app).get('/dashboard/assets/nope.js');
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('route_not_found');
    const post = await supertest(app).post('/dashboard');
    expect(post.status).toBe(405);
    expect(post.body.error.code).toBe('method_not_allowed');
  });

  it('without a build, answers 503 saying how to make one', async () => {
    const empty = mkdtempSync(path.join(os.tmpdir(), 'gw-dashboard-empty-'));
    try {
      const bare = express();
      bare.use('/dashboard', dashboardFiles(empty));
      bare.use(errorHandler(pino({ level: 'silent' })));
      const response = await supertest(bare).get('/dashboard/accounts');
      expect(response.status).toBe(503);
      expect(response.body).toEqual({
        error: { message: expect.stringContaining('npm run build'), type: 'server_error', param: null, code: 'dashboard_not_built' },
      });
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe('the gateway', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    await ensureDashboardBuilt();
    gw = await startTestGateway();
  });
  afterAll(() => gw.close());

  it('serves the built dashboard at /dashboard, with its script and styles from the same origin', async () => {
    const page = await gw.http.get('/dashboard/accounts');
    expect(page.status).toBe(200);
    const assets = [...page.text.matchAll(/(?:src|href)="(\/dashboard\/assets\/[^"]+)"/g)].map((match) => match[1] ?? '');
    expect(assets.length).toBeGreaterThanOrEqual(2);
    for (const asset of assets) expect((await gw.http.get(asset)).status).toBe(200);
    expect(page.text).not.toMatch(/https?:\/\//);
  });

  it('keeps the API envelope everywhere else', async () => {
    expect((await gw.http.get('/dashboardx')).status).toBe(404);
    expect((await gw.http.get('/v1/nope')).body.error.code).toBe('route_not_found');
  });
});
