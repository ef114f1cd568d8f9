import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway';

/** docs/errors.md: a wrong type is named in words, and a repeated query parameter is said plainly. */
let gw: TestGateway;
let apiKey: string;
let usageKey: string;
beforeAll(async () => {
  gw = await startTestGateway();
  const accountId = await gw.createAccount();
  apiKey = (await gw.createKey(accountId)).key;
  usageKey = await gw.createUsageKey(accountId);
});
afterAll(() => gw.close());

const chat = (body: unknown) =>
  gw.http
    .post('/v1/chat/completions')
    .set('authorization', `Bearer ${apiKey}`)
    .send(body as object);
const hello = [{ role: 'user', content: 'hi' }];

it.each([
  [{ model: 'mock-chat', messages: hello, stop: 5 }, 'stop', 'Invalid type for stop: expected a string or an array, got a number.'],
  [
    { model: 'mock-chat', messages: [{ role: 'user', content: 7 }] },
    'messages[0].content',
    'Invalid type for messages[0].content: expected a string or an array, got a number.',
  ],
  [
    { model: 'mock-chat', messages: hello, temperature: 'hot' },
    'temperature',
    'Invalid type for temperature: expected a number, got a string.',
  ],
  [{ model: 'mock-chat', messages: hello, stream: 'yes' }, 'stream', 'Invalid type for stream: expected true or false, got a string.'],
  [{ model: 42, messages: hello }, 'model', 'Invalid type for model: expected a string, got a number.'],
  [{ model: 'mock-chat', messages: 'hi' }, 'messages', 'Invalid type for messages: expected an array, got a string.'],
])('a wrong type names the expected one in words (%#)', async (body, param, message) => {
  const response = await chat(body);
  expect(response.status).toBe(400);
  expect(response.body.error).toEqual({ type: 'invalid_request_error', code: 'invalid_value', param, message });
});

it('no message says only "Invalid type."', async () => {
  const response = await chat({ model: 'mock-chat', messages: hello, tool_choice: 3 });
  expect(response.status).toBe(400);
  expect(response.body.error.message).toBe(
    "Invalid type for tool_choice: expected one of 'none', 'auto', 'required' or an object, got a number.",
  );
});

it('a repeated query parameter is a 400 that says so', async () => {
  const response = await gw.http.get('/v1/usage/keys?start=2026-01-01&start=2026-01-02').set('authorization', `Bearer ${usageKey}`);
  expect(response.status).toBe(400);
  expect(response.body.error).toEqual({
    type: 'invalid_request_error',
    code: 'invalid_value',
    param: 'start',
    message: 'The query parameter start is given more than once; give it once.',
  });
});
