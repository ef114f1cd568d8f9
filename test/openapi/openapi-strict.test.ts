import { expect, it } from 'vitest';
import { readDocument, responseValidator, strictAjv } from './openapi-schemas';

it('the document is OpenAPI 3.1 without 3.0-only keywords (nullable)', () => {
  const text = JSON.stringify(readDocument());
  expect(readDocument()).toMatchObject({ openapi: '3.1.0' });
  expect(text).not.toContain('"nullable"');
});

it('Ajv (strict, JSON Schema 2020-12) compiles every component and every request and response schema', () => {
  const document = readDocument();
  const ajv = strictAjv(document);
  for (const name of Object.keys(document.components.schemas)) {
    expect(() => ajv.compile({ $ref: `openapi.json#/components/schemas/${name}` }), name).not.toThrow();
  }
  let compiled = 0;
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      for (const [status, response] of Object.entries(operation.responses)) {
        if (!response.content?.['application/json']) continue;
        expect(() => responseValidator(ajv, path, method, Number(status)), `${method} ${path} ${status}`).not.toThrow();
        compiled++;
      }
    }
  }
  expect(compiled).toBeGreaterThan(50);
});

it('nullable fields are written as JSON Schema types with null', () => {
  const document = readDocument();
  const ajv = strictAjv(document);
  const validate = ajv.compile({ $ref: 'openapi.json#/components/schemas/ChatCompletion' });
  const reply = {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1,
    model: 'm',
    choices: [{ index: 0, message: { role: 'assistant', content: null, refusal: null }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 1, completion_tokens: 0, total_tokens: 1 },
  };
  expect(validate(reply), JSON.stringify(validate.errors)).toBe(true);
  expect(validate({ ...reply, usage: null })).toBe(false);
});
