import { createHash, timingSafeEqual } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { EventStreamCodec } from '@smithy/core/event-streams';
import { fromUtf8, Hash, toUtf8 } from '@smithy/core/serde';
import { SignatureV4 } from '@smithy/signature-v4';
import type { MessageHeaders } from '@smithy/types';
import { refusal, startEventStream, startMockUpstream, writePiecewise } from './mock-upstream';
import type { CommonReply, MockUpstream, RecordedRequest } from './mock-upstream';

/**
 * A local Amazon Bedrock Runtime API for adapter and end-to-end tests (the common machinery:
 * mock-upstream.ts), written from AWS's API reference:
 * - it checks what AWS checks before anything else: a Signature V4 signature recomputed with
 *   the secret it knows for the access key (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv.html),
 *   over the received method, path, signed headers and body (a wrong secret or a changed body
 *   is refused with 403 `InvalidSignatureException`, an unknown key with
 *   `UnrecognizedClientException`, a date more than 15 minutes off with "Signature expired"),
 *   or a Bedrock API key as a bearer token;
 * - errors carry their type in `x-amzn-errortype` and `{"message": …}`
 *   (https://docs.aws.amazon.com/bedrock/latest/APIReference/CommonErrors.html);
 * - streams are written in `application/vnd.amazon.eventstream` framing, encoded by AWS's codec:
 *   ConverseStream events (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStreamOutput.html)
 *   and InvokeModelWithResponseStream `chunk`s with base64 `bytes`.
 */

/** One event-stream message: an event with its JSON payload, or an exception. */
export type MockBedrockEvent = { event: string; payload: unknown } | { exception: string; message: string };

export type MockReply =
  | CommonReply
  /** An event stream; `slices`, `dropAfter` and `hold` as in mock-anthropic-upstream.ts. */
  | { type: 'events'; events: MockBedrockEvent[]; slices?: number[]; dropAfter?: number; hold?: boolean };

export type MockBedrockUpstream = MockUpstream<MockReply>;

export interface MockBedrockOptions {
  region?: string;
  /** Secret access keys by access key id: the credentials the mock accepts. */
  credentials?: Record<string, string>;
  /** Bedrock API keys the mock accepts as bearer tokens. */
  apiKeys?: string[];
  /** The mock's clock for the 15-minute check of the signing date (default: the real one). */
  now?: () => number;
}

export const MOCK_REGION = 'us-east-1';
export const MOCK_ACCESS_KEY_ID = 'AKIAIOSFODNN7EXAMPLE';
export const MOCK_SECRET_ACCESS_KEY = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
export const MOCK_API_KEY = 'ABSKQmVkcm9ja0FQSUtleS1tb2NrLTAxMjM0NTY3ODk=';

const codec = new EventStreamCodec(toUtf8, fromUtf8);

export function startMockBedrockUpstream(options: MockBedrockOptions = {}): Promise<MockBedrockUpstream> {
  const region = options.region ?? MOCK_REGION;
  const credentials = options.credentials ?? { [MOCK_ACCESS_KEY_ID]: MOCK_SECRET_ACCESS_KEY };
  const apiKeys = options.apiKeys ?? [MOCK_API_KEY];
  const now = options.now ?? Date.now;
  return startMockUpstream<MockReply>({
    jsonHeaders: { 'x-amzn-requestid': 'mock-request-id' },
    defaultReply: errorReply('InternalServerException', 'The mock has no scripted reply.', 500),
    answerFirst: async (recorded) => refusal(await authorize(recorded, { region, credentials, apiKeys, now })),
    sendOther: async (reply, response: ServerResponse, recorded) => {
      startEventStream(response, 200, 'application/vnd.amazon.eventstream', { 'x-amzn-requestid': 'mock-request-id' });
      const events = reply.dropAfter === undefined ? reply.events : reply.events.slice(0, reply.dropAfter);
      recorded.eventsWritten = events.length;
      await writePiecewise(response, encodeEvents(events), { slices: reply.slices, drop: reply.dropAfter !== undefined, hold: reply.hold });
    },
  });
}

/** Events in event-stream framing, as Bedrock writes them. */
export function encodeEvents(events: MockBedrockEvent[]): Uint8Array {
  return Buffer.concat(events.map((event) => codec.encode(encodeMessage(event))));
}

function encodeMessage(event: MockBedrockEvent): { headers: MessageHeaders; body: Uint8Array } {
  const text = (value: string) => ({ type: 'string' as const, value });
  if ('exception' in event) {
    return {
      headers: { ':message-type': text('exception'), ':exception-type': text(event.exception), ':content-type': text('application/json') },
      body: fromUtf8(JSON.stringify({ message: event.message })),
    };
  }
  return {
    headers: { ':message-type': text('event'), ':event-type': text(event.event), ':content-type': text('application/json') },
    body: fromUtf8(JSON.stringify(event.payload)),
  };
}

// ---- Authentication, as AWS checks it -----------------------------------------------------

interface AuthSettings {
  region: string;
  credentials: Record<string, string>;
  apiKeys: string[];
  now: () => number;
}

const AUTHORIZATION =
  /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/;
const SIGNATURE_MISMATCH =
  'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.';
const MAX_SKEW_MS = 15 * 60_000;

async function authorize(recorded: RecordedRequest, settings: AuthSettings): Promise<CommonReply | null> {
  const header = (name: string): string => {
    const value = recorded.headers[name];
    return (Array.isArray(value) ? value[0] : value) ?? '';
  };
  const authorization = header('authorization');
  if (authorization.startsWith('Bearer ')) {
    const token = authorization.slice('Bearer '.length);
    return settings.apiKeys.includes(token)
      ? null
      : errorReply('UnrecognizedClientException', 'The security token included in the request is invalid.', 403);
  }
  if (authorization === '') return errorReply('MissingAuthenticationTokenException', 'Missing Authentication Token', 403);
  const match = AUTHORIZATION.exec(authorization);
  if (!match) return errorReply('IncompleteSignatureException', 'The Authorization header is malformed.', 403);
  const [, accessKeyId = '', , scopeRegion = '', service = '', signedHeaders = '', signature = ''] = match;
  const secretAccessKey = settings.credentials[accessKeyId];
  if (secretAccessKey === undefined) {
    return errorReply('UnrecognizedClientException', 'The security token included in the request is invalid.', 403);
  }
  if (scopeRegion !== settings.region || service !== 'bedrock') {
    return errorReply('InvalidSignatureException', `Credential should be scoped to a valid region and service.`, 403);
  }
  const signingDate = parseAmzDate(header('x-amz-date'));
  if (!signingDate) return errorReply('IncompleteSignatureException', 'The request has no valid X-Amz-Date header.', 403);
  if (Math.abs(signingDate.getTime() - settings.now()) > MAX_SKEW_MS) {
    return errorReply(
      'InvalidSignatureException',
      'Signature expired: the signing date is more than 15 minutes from the current time.',
      403,
    );
  }
  const contentHash = header('x-amz-content-sha256');
  if (contentHash !== '' && contentHash !== createHash('sha256').update(recorded.rawBody, 'utf8').digest('hex')) {
    return errorReply('InvalidSignatureException', SIGNATURE_MISMATCH, 403);
  }
  // The signature recomputed over what arrived: the signed headers as received (the payload
  // hash left to the signer, which hashes the body itself) and the body.
  const headers: Record<string, string> = {};
  for (const name of signedHeaders.split(';')) {
    if (name !== 'x-amz-content-sha256') headers[name] = header(name);
  }
  const sessionToken = header('x-amz-security-token');
  const signer = new SignatureV4({
    service,
    region: scopeRegion,
    credentials: { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) },
    sha256: Hash.bind(null, 'sha256'),
  });
  const [path = '/', query = ''] = recorded.path.split('?');
  const expected = await signer.sign(
    {
      method: recorded.method,
      protocol: 'http:',
      hostname: headers.host ?? '',
      path,
      query: Object.fromEntries(new URLSearchParams(query)),
      headers,
      body: recorded.rawBody,
    },
    { signingDate },
  );
  const expectedSignature = /Signature=([0-9a-f]{64})/.exec(expected.headers.authorization ?? '')?.[1] ?? '';
  const same = expectedSignature.length === signature.length && timingSafeEqual(Buffer.from(expectedSignature), Buffer.from(signature));
  return same ? null : errorReply('InvalidSignatureException', SIGNATURE_MISMATCH, 403);
}

function parseAmzDate(value: string): Date | null {
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value);
  if (!match) return null;
  const [, year, month, day, hours, minutes, seconds] = match;
  return new Date(`${year}-${month}-${day}T${hours}:${minutes}:${seconds}Z`);
}

// ---- Wire-format builders -----------------------------------------------------------------

/** An error reply as Bedrock sends it: the type in `x-amzn-errortype`, the message in the body. */
export function errorReply(type: string, message: string, status: number, headers: Record<string, string> = {}): CommonReply {
  return {
    type: 'json',
    status,
    body: { message },
    headers: { 'x-amzn-errortype': `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/`, ...headers },
  };
}

export interface MockConverseUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadInputTokens?: number;
  cacheWriteInputTokens?: number;
}

function withTotal(usage: MockConverseUsage) {
  const total = usage.inputTokens + usage.outputTokens + (usage.cacheReadInputTokens ?? 0) + (usage.cacheWriteInputTokens ?? 0);
  return { ...usage, totalTokens: total };
}

/** A Converse reply. */
export function converseReply(
  content: unknown[],
  stopReason = 'end_turn',
  usage: MockConverseUsage = { inputTokens: 10, outputTokens: 4 },
): CommonReply {
  return {
    type: 'json',
    body: { output: { message: { role: 'assistant', content } }, stopReason, usage: withTotal(usage), metrics: { latencyMs: 120 } },
  };
}

/** The ConverseStream events of a text reply, one delta per piece, with the closing metadata. */
export function converseTextEvents(
  pieces: string[],
  stopReason = 'end_turn',
  usage: MockConverseUsage = { inputTokens: 10, outputTokens: 4 },
): MockBedrockEvent[] {
  return [
    { event: 'messageStart', payload: { role: 'assistant' } },
    ...pieces.map((text) => ({ event: 'contentBlockDelta', payload: { contentBlockIndex: 0, delta: { text } } })),
    { event: 'contentBlockStop', payload: { contentBlockIndex: 0 } },
    ...converseEnd(stopReason, usage),
  ];
}

/** messageStop and metadata, the two events that end every ConverseStream reply. */
export function converseEnd(stopReason: string, usage: MockConverseUsage): MockBedrockEvent[] {
  return [
    { event: 'messageStop', payload: { stopReason } },
    { event: 'metadata', payload: { usage: withTotal(usage), metrics: { latencyMs: 120 } } },
  ];
}

/** InvokeModelWithResponseStream `chunk`s, each one Anthropic stream event base64-encoded. */
export function anthropicChunks(events: { type: string; [key: string]: unknown }[]): MockBedrockEvent[] {
  return events.map((event) => ({ event: 'chunk', payload: { bytes: Buffer.from(JSON.stringify(event), 'utf8').toString('base64') } }));
}
