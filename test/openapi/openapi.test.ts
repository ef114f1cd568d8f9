import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));
const committedPath = fileURLToPath(new URL('../../openapi/openapi.json', import.meta.url));

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(() => gw.close());

it('the committed openapi/openapi.json is fresh and valid (npm run openapi:check)', async () => {
  const { stdout } = await run('npx', ['--no-install', 'tsx', 'openapi/generate.ts', '--check'], { cwd: root });
  expect(stdout).toContain('up to date');
});

it('the server publishes the same document at /v1/openapi.json, with every route and the bearer schemes', async () => {
  const response = await gw.http.get('/v1/openapi.json');
  expect(response.status).toBe(200);
  const committed = JSON.parse(readFileSync(committedPath, 'utf8')) as Record<string, unknown>;
  expect(response.body).toEqual(committed);
  const document = (await SwaggerParser.validate(structuredClone(committed) as never)) as unknown as {
    paths: Record<
      string,
      Record<string, { security: Record<string, unknown>[]; responses: Record<string, { content?: Record<string, unknown> }> }>
    >;
    components: { securitySchemes: Record<string, { type: string; scheme?: string; in?: string; name?: string }> };
  };
  expect(Object.keys(document.components.securitySchemes).sort()).toEqual(['adminToken', 'apiKey', 'sessionCookie', 'usageKey']);
  expect(document.components.securitySchemes.sessionCookie).toMatchObject({ type: 'apiKey', in: 'cookie', name: 'mg_session' });
  const chat = document.paths['/v1/chat/completions']?.post;
  expect(chat?.security).toEqual([{ apiKey: [] }]);
  expect(Object.keys(chat?.responses['200']?.content ?? {})).toEqual(['application/json', 'text/event-stream']);
  expect(document.paths['/v1/usage/keys']?.get?.security).toEqual([{ usageKey: [] }]);
  expect(document.paths['/v1/models']?.get?.security).toEqual([]);
  expect(document.paths['/v1/admin/accounts']?.post?.security).toEqual([{ adminToken: [] }, { sessionCookie: [] }]);
  expect(document.paths['/v1/admin/session']?.post?.security).toEqual([]);
  expect(document.paths['/v1/admin/session']?.get?.security).toEqual([{ sessionCookie: [] }]);
});

it('GET /docs is the Scalar API reference page, served with its renderer by the server (no CDN)', async () => {
  const response = await gw.http.get('/docs');
  expect(response.status).toBe(200);
  expect(response.headers['content-type']).toMatch(/text\/html/);
  expect(response.headers['content-security-policy']).toContain("script-src 'self'");
  expect(response.headers['content-security-policy']).toContain("connect-src 'self'");
  expect(response.text).toContain('data-url="/v1/openapi.json"');
  expect(response.text).toContain('<script src="/docs/api-reference.js"></script>');
  expect(response.text).not.toMatch(/https?:\/\//);
  const script = await gw.http.get('/docs/api-reference.js');
  expect(script.status).toBe(200);
  expect(script.headers['content-type']).toMatch(/javascript/);
  expect(Number(script.headers['content-length'])).toBeGreaterThan(1_000_000);
});
