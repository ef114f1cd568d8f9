import { expect, it } from 'vitest';
import { cutToBytes, keptBody, REDACTED } from '../../server/request-log/redact-secrets';

/* docs/request-log.md, "Bodies": nothing key-shaped is stored, and a cut never splits a character. */
it.each([
  ['an sk- key in text', '{"content":"use sk-proj-abcdefghijklmnop please"}', 'abcdefghijklmnop'],
  ['a bearer credential', '{"content":"Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.payload"}', 'eyJhbGciOiJIUzI1NiJ9'],
  ['an x-api-key field', '{"headers":{"x-api-key":"anthropic-secret-value"}}', 'anthropic-secret-value'],
  ['an api_key field', '{"api_key":"short1"}', 'short1'],
  ['an access_token field', '{"access_token":"ya29.value"}', 'ya29.value'],
  ['a sessionToken field', '{"sessionToken":"aws-session-value"}', 'aws-session-value'],
])('redacts %s', (_name, body, secret) => {
  const kept = keptBody(body, 10_000) ?? '';
  expect(kept).not.toContain(secret);
  expect(kept).toContain(REDACTED);
});

it('keeps what is not a secret, max_tokens and the tokens of logprobs included', () => {
  const body = '{"model":"mock-chat","max_tokens":5,"messages":[{"role":"user","content":"hello"}]}';
  expect(keptBody(body, 10_000)).toBe(body);
  const logprobs = '{"logprobs":{"content":[{"token":"Hello","logprob":-0.01,"bytes":[72,101,108,108,111],"top_logprobs":[]}]}}';
  expect(keptBody(logprobs, 10_000)).toBe(logprobs);
});

it('redacts before cutting, so a cut cannot leave half a key', () => {
  const kept = keptBody(`${'a'.repeat(20)} sk-abcdefghijklmnopqrstuvwxyz`, 30) ?? '';
  expect(kept).toBe(`${'a'.repeat(20)} [redacted]`.slice(0, 30));
  expect(kept).not.toContain('sk-abc');
});

it('cuts to the byte cap without splitting a character', () => {
  const cut = cutToBytes('ééé', 5);
  expect(cut).toBe('éé');
  expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(5);
});
