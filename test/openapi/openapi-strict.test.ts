import { expect, it } from 'vitest';
import { readDocument, responseValidator, strictAjv, type OpenApiDocument } from './openapi-schemas';

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

it('every operation has a summary and a description, every field a description, and the main routes examples', () => {
  const document = readDocument() as unknown as {
    paths: Record<
      string,
      Record<
        string,
        {
          summary?: string;
          description?: string;
          requestBody?: { content: Record<string, { example?: unknown }> };
          responses: Record<string, { content?: Record<string, { example?: unknown }> }>;
        }
      >
    >;
  };
  const undescribed: string[] = [];
  const walk = (node: unknown, path: string): void => {
    if (Array.isArray(node)) return node.forEach((item, index) => walk(item, `${path}[${index}]`));
    if (typeof node !== 'object' || node === null) return;
    const properties = (node as { properties?: Record<string, { description?: string; $ref?: string }> }).properties;
    for (const [name, property] of Object.entries(properties ?? {}))
      if (!property.description && !property.$ref) undescribed.push(`${path}.${name}`);
    for (const [key, value] of Object.entries(node)) walk(value, `${path}/${key}`);
  };
  walk(document, '');
  expect(undescribed).toEqual([]);
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      expect(operation.summary, `${method} ${path}`).toBeTruthy();
      expect(operation.description, `${method} ${path}`).toBeTruthy();
    }
  }
  const chat = document.paths['/v1/chat/completions']?.post;
  expect(chat?.requestBody?.content['application/json']?.example).toMatchObject({ model: 'mock-chat' });
  expect(chat?.responses['200']?.content?.['application/json']?.example).toMatchObject({ object: 'chat.completion' });
  expect(document.paths['/v1/embeddings']?.post?.responses['200']?.content?.['application/json']?.example).toMatchObject({
    object: 'list',
  });
  expect(document.paths['/v1/models']?.get?.responses['200']?.content?.['application/json']?.example).toMatchObject({ object: 'list' });
  expect(document.paths['/v1/usage/keys']?.get?.responses['200']?.content?.['application/json']?.example).toMatchObject({
    object: 'usage.keys',
  });
});

it('examples validate against their schemas', () => {
  const document = readDocument() as unknown as OpenApiDocument & {
    paths: Record<
      string,
      Record<
        string,
        {
          requestBody?: { content: Record<string, { example?: unknown }> };
          responses: Record<string, { content?: Record<string, { example?: unknown }> }>;
        }
      >
    >;
  };
  const ajv = strictAjv(document);
  let checked = 0;
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      for (const [status, response] of Object.entries(operation.responses)) {
        const example = response.content?.['application/json']?.example;
        if (example === undefined) continue;
        const validate = responseValidator(ajv, path, method, Number(status));
        expect(validate(example), `${method} ${path} ${status}: ${JSON.stringify(validate.errors)}`).toBe(true);
        checked++;
      }
    }
  }
  expect(checked).toBeGreaterThanOrEqual(6);
});

it('every streamed route has a stream example whose events follow its x-event-schema', () => {
  const document = readDocument() as unknown as OpenApiDocument & {
    paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { example?: string }> }> }>>;
  };
  const ajv = strictAjv(document);
  const streamed: string[] = [];
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      const stream = operation.responses['200']?.content?.['text/event-stream'];
      if (!stream) continue;
      streamed.push(path);
      expect(stream.example, path).toBeTypeOf('string');
      const pointer = `openapi.json#/paths/${path.replace(/\//g, '~1')}/${method}/responses/200/content/text~1event-stream/x-event-schema`;
      const validate = ajv.compile({ $ref: pointer });
      for (const event of (stream.example ?? '').split('\n\n').filter(Boolean)) {
        const lines = event.split('\n');
        const data = lines.find((line) => line.startsWith('data: '))?.slice('data: '.length) ?? '';
        if (data === '[DONE]') continue;
        const value = JSON.parse(data) as { type?: string };
        expect(validate(value), `${path}: ${data} ${JSON.stringify(validate.errors)}`).toBe(true);
        const name = lines.find((line) => line.startsWith('event: '))?.slice('event: '.length);
        if (name !== undefined) expect(value.type, path).toBe(name);
      }
    }
  }
  expect(streamed.sort()).toEqual(['/v1/chat/completions', '/v1/messages', '/v1/responses']);
});
