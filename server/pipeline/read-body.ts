import type { IncomingMessage, ServerResponse } from 'node:http';
import express from 'express';
import { withoutByteOrderMark } from '../byte-order-mark';
import { invalidRequest, type GatewayError } from '../errors/gateway-error';

/** The body stage's answer: `body` (undefined when the request has none) or the error to answer with. */
export type BodyResult = { ok: true; body: unknown } | { ok: false; error: GatewayError };

/**
 * The most of a refused body read and thrown away before answering (docs/errors.md): a
 * client still sending then gets the error instead of a reset connection. Past it the error
 * goes out and the connection closes. At least 64 MiB, or twice the body limit when that is
 * more: a client's honest oversized body is usually a few times the limit, and reading it
 * costs the gateway bandwidth, not memory (the bytes are dropped as they come); the time
 * spent is bounded by `server.request_timeout_ms` as for any request.
 */
export const discardBound = (limitBytes: number): number => Math.max(2 * limitBytes, 64 * 1024 * 1024);

/**
 * JSON bodies only (docs/errors.md): a body that is not `application/json` (or `+json`) is
 * 415, over `limitBytes` is 413, malformed is 400 `invalid_json`. An error answered before
 * the body was read in full (413, 415) is answered after discarding the rest (up to
 * `discardBound`) with `Connection: close`. The common request (a Content-Length, no
 * Content-Encoding, UTF-8) is read here; the rest (inflating, other charsets, chunked
 * bodies) by body-parser, whose failures map to the same errors.
 */
export function readJsonBody(
  request: IncomingMessage,
  response: ServerResponse,
  limitBytes: number,
  fallback: BodyParser,
): Promise<BodyResult> {
  const { headers } = request;
  const length = headers['content-length'];
  const chunked = headers['transfer-encoding'] !== undefined;
  if (!chunked && (length === undefined || length === '0')) return Promise.resolve(NO_BODY);
  if (length !== undefined && Number(length) > limitBytes) return discardThen(request, limitBytes, tooLarge(limitBytes));
  const type = headers['content-type'];
  if (!type || !isJsonType(type)) {
    return discardThen(
      request,
      limitBytes,
      invalidRequest('unsupported_media_type', 'The request body must be JSON (Content-Type: application/json).', null, 415),
    );
  }
  if (length !== undefined && !chunked && isPlainUtf8(request, type)) return readUtf8Json(request, limitBytes);
  return new Promise((resolve) => {
    const target = request as IncomingMessage & { body?: unknown };
    fallback(target, response, (error?: unknown) => {
      if (error) resolve({ ok: false, error: mapBodyParserError(error, limitBytes) });
      else resolve({ ok: true, body: target.body });
    });
  });
}

/** body-parser's JSON reader, for what `readJsonBody` does not read itself. */
export type BodyParser = (request: IncomingMessage, response: ServerResponse, next: (error?: unknown) => void) => void;

export function createBodyParser(limitBytes: number): BodyParser {
  return express.json({ limit: limitBytes, strict: false, type: () => true });
}

const NO_BODY: BodyResult = { ok: true, body: undefined };

function isPlainUtf8(request: IncomingMessage, type: string): boolean {
  const encoding = request.headers['content-encoding'];
  if (encoding !== undefined && encoding.toLowerCase() !== 'identity') return false;
  const parameters = type.indexOf(';');
  if (parameters === -1) return true;
  const rest = type
    .slice(parameters + 1)
    .trim()
    .toLowerCase();
  return rest === 'charset=utf-8' || rest === 'charset="utf-8"';
}

/** body-parser's result for the same bytes: a leading BOM dropped, an empty text is `{}`. */
function readUtf8Json(request: IncomingMessage, limitBytes: number): Promise<BodyResult> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let received = 0;
    let finished = false;
    const detach = () => {
      request.off('data', onData);
      request.off('end', onEnd);
      request.off('aborted', onAborted);
      request.off('error', onAborted);
    };
    const finish = (result: BodyResult) => {
      if (finished) return;
      finished = true;
      detach();
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      // More than the Content-Length announced cannot arrive (Node's parser); this guards the limit anyway.
      if (received > limitBytes) {
        detach();
        finished = true;
        // discardThen only resolves (the 413 once the rest is read off or the client is gone).
        return void discardThen(request, limitBytes, tooLarge(limitBytes), received).then(resolve);
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      const text = withoutByteOrderMark((chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)).toString('utf8'));
      if (text.length === 0) return finish({ ok: true, body: {} });
      let body: unknown;
      try {
        body = JSON.parse(text) as unknown;
      } catch {
        return finish({ ok: false, error: invalidJson() });
      }
      finish({ ok: true, body });
    };
    const onAborted = () => finish({ ok: false, error: invalidRequest('invalid_json', 'The request body was incomplete.') });
    request.on('data', onData);
    request.once('end', onEnd);
    request.once('aborted', onAborted);
    request.once('error', onAborted);
  });
}

/**
 * Reads and drops the rest of the request (up to `discardBound`), then resolves with `error`,
 * marked to close the connection: the client has finished sending, or will not be read further.
 */
function discardThen(request: IncomingMessage, limitBytes: number, error: GatewayError, alreadyRead = 0): Promise<BodyResult> {
  error.headers.connection = 'close';
  const result: BodyResult = { ok: false, error };
  if (request.complete) return Promise.resolve(result);
  const bound = discardBound(limitBytes);
  return new Promise((resolve) => {
    let discarded = alreadyRead;
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      request.off('data', onData);
      request.off('end', finish);
      request.off('aborted', finish);
      request.off('error', finish);
      request.off('close', finish);
      if (!request.complete) request.pause();
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      discarded += chunk.length;
      if (discarded > bound) finish();
    };
    request.on('data', onData);
    request.once('end', finish);
    request.once('aborted', finish);
    request.once('error', finish);
    request.once('close', finish);
    request.resume();
  });
}

function isJsonType(contentType: string): boolean {
  // What nearly every client sends, without splitting and lower-casing it.
  if (contentType === 'application/json') return true;
  const mediaType = contentType.split(';', 1)[0]?.trim().toLowerCase() ?? '';
  return mediaType === 'application/json' || (mediaType.startsWith('application/') && mediaType.endsWith('+json'));
}

const tooLarge = (limitBytes: number): GatewayError =>
  invalidRequest('payload_too_large', `The request body is larger than the limit of ${limitBytes} bytes.`, null, 413);

const invalidJson = (): GatewayError => invalidRequest('invalid_json', 'The request body is not valid JSON.');

function mapBodyParserError(error: unknown, limitBytes: number): GatewayError {
  const type = (error as { type?: string }).type;
  if (type === 'entity.too.large') {
    const refused = tooLarge(limitBytes);
    refused.headers.connection = 'close';
    return refused;
  }
  if (type === 'encoding.unsupported' || type === 'charset.unsupported') {
    return invalidRequest('unsupported_media_type', 'Unsupported body encoding or charset; send UTF-8 JSON.', null, 415);
  }
  if (type === 'request.aborted' || type === 'request.size.invalid')
    return invalidRequest('invalid_json', 'The request body was incomplete.');
  return invalidJson();
}
