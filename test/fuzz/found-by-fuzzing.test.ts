import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway';

/** Inputs the hostile-input fuzzer once turned into a 500, kept as fixed regression cases. */
describe('found by fuzzing', () => {
  let gw: TestGateway;
  let key: string;
  beforeAll(async () => {
    gw = await startTestGateway();
    key = (await gw.createKey(await gw.createAccount())).key;
  });
  afterAll(() => gw?.close());

  const expectClientError = (response: { status: number; body: { error?: { param?: unknown } } }) => {
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);
    const param = response.body.error?.param === null ? null : expect.any(String);
    expect(response.body).toEqual({ error: { message: expect.any(String), type: expect.any(String), param, code: expect.any(String) } });
  };

  it('a path parameter that is not valid percent-encoding is 400, not 500', async () => {
    const response = await gw.http.get('/v1/admin/keys/%ZZ').set(gw.admin());
    expectClientError(response);
    expect(response.body.error.code).toBe('invalid_value');
  });

  it('a NUL character in a path parameter or a stored name is a client error (Postgres cannot store it)', async () => {
    expectClientError(await gw.http.get('/v1/admin/accounts/%00').set(gw.admin()));
    const created = await gw.http.post('/v1/admin/accounts').set(gw.admin()).send({ name: 'a\u0000b' });
    // SQLite stores it; Postgres refuses it: 201 or 400, never 500.
    if (created.status !== 201) expectClientError(created);
  });

  it.each([1e308, 2 ** 53 + 1])('max_tokens %s is refused as too large for the token budget, not a crash', async (maxTokens) => {
    const response = await gw.http
      .post('/v1/chat/completions')
      .set('authorization', `Bearer ${key}`)
      .send({ model: 'mock-chat', messages: [{ role: 'user', content: 'hi' }], max_tokens: maxTokens });
    expectClientError(response);
  });
});
