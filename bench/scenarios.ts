/**
 * What `npm run bench` sends. The prompt is a typical short chat turn (a system message and
 * a user question, ~150 tokens); the gateway's per-request costs that grow with the prompt
 * (parsing, validation, token estimate) are included at that size.
 */
export interface Scenario {
  id: string;
  title: string;
  path: string;
  body: string;
  connections: number;
  /**
   * What the mock, the bare proxy and the JSON proxy are sent instead, when the gateway's route
   * is translated to another upstream format (their CPU per request is the one compared to).
   */
  baseline?: { path: string; body: string };
}

const MESSAGES = [
  {
    role: 'system',
    content:
      'You are a concise technical assistant. Answer in plain English, cite the relevant specification section when there is one, ' +
      'and say so when you are not sure. Prefer short paragraphs and concrete examples over general advice.',
  },
  {
    role: 'user',
    content:
      'Our service proxies HTTP requests to several model providers and we want to know where the time goes under load. ' +
      'Which measurements should we take first, and how do we tell the cost of the proxy itself apart from the time spent ' +
      'waiting for the upstream? Keep it to a few points.',
  },
];

export const CHAT_BODY = JSON.stringify({ model: 'bench-chat', messages: MESSAGES, max_tokens: 256, temperature: 0.7 });
export const STREAM_BODY = JSON.stringify({
  model: 'bench-chat',
  messages: MESSAGES,
  max_tokens: 256,
  temperature: 0.7,
  stream: true,
  stream_options: { include_usage: true },
});
/** The same turn as a Responses API stream (Codex's shape: instructions, input items), translated by the gateway to a chat stream. */
export const RESPONSES_STREAM_BODY = JSON.stringify({
  model: 'bench-chat',
  instructions: MESSAGES[0]?.content,
  input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: MESSAGES[1]?.content }] }],
  max_output_tokens: 256,
  temperature: 0.7,
  stream: true,
  store: false,
});
export const SLOW_STREAM_BODY = STREAM_BODY.replace('"bench-chat"', '"bench-chat-slow"');
export const HOLD_STREAM_BODY = STREAM_BODY.replace('"bench-chat"', '"bench-chat-hold"');
/** The same turn in the Anthropic Messages format (docs/anthropic-messages.md). */
const MESSAGES_TURN = {
  system: MESSAGES[0]?.content,
  messages: [{ role: 'user', content: MESSAGES[1]?.content }],
  max_tokens: 256,
  stream: true,
};
/** To an anthropic-type upstream: the pass-through, whose CPU per request is held to 1.5x the bare proxy's. */
export const MESSAGES_STREAM_BODY = JSON.stringify({ model: 'bench-claude', ...MESSAGES_TURN });
/** To the chat upstream: translated both ways, held to 2.5x the bare proxy's. */
export const MESSAGES_TRANSLATED_STREAM_BODY = JSON.stringify({ model: 'bench-chat', ...MESSAGES_TURN });
/** The Bedrock model of the `bedrock-stream` scenario (bench/gateway-process.ts configures it). */
export const BEDROCK_BENCH_MODEL = 'amazon.nova-pro-v1:0';
/** The chat stream to a Bedrock-type model (signed, its reply in event-stream framing). */
const BEDROCK_STREAM_BODY = STREAM_BODY.replace('"bench-chat"', '"bench-bedrock"');
/** What the bare proxy relays instead: the same turn as a ConverseStream request, to the same mock. */
const CONVERSE_STREAM_BODY = JSON.stringify({
  system: [{ text: MESSAGES[0]?.content }],
  messages: [{ role: 'user', content: [{ text: MESSAGES[1]?.content }] }],
  inferenceConfig: { maxTokens: 256, temperature: 0.7 },
});
const EMBED_INPUT = 'Measure first, then change one thing at a time and measure again; keep the numbers with the change.';

export function scenarios(chunks: number, dimensions: number): Scenario[] {
  const embeddings = (format: 'float' | 'base64'): Scenario => ({
    id: `embed-${format}`,
    title: `embeddings, ${dimensions.toLocaleString('en-US')} dims, ${format}, 64 connections`,
    path: '/v1/embeddings',
    body: JSON.stringify({ model: 'bench-embed', input: EMBED_INPUT, encoding_format: format }),
    connections: 64,
  });
  return [
    { id: 'chat', title: 'chat, non-streaming, 64 connections', path: '/v1/chat/completions', body: CHAT_BODY, connections: 64 },
    {
      id: 'stream',
      title: `chat, streaming (${chunks} chunks), 64 connections`,
      path: '/v1/chat/completions',
      body: STREAM_BODY,
      connections: 64,
    },
    {
      id: 'responses-stream',
      title: `responses translated to a chat upstream, streaming (${chunks} chunks), 64 connections`,
      path: '/v1/responses',
      body: RESPONSES_STREAM_BODY,
      connections: 64,
      baseline: { path: '/v1/chat/completions', body: STREAM_BODY },
    },
    {
      id: 'messages-stream',
      title: `messages, pass-through stream (${chunks} deltas), 64 connections`,
      path: '/v1/messages',
      body: MESSAGES_STREAM_BODY,
      connections: 64,
    },
    {
      id: 'messages-translated',
      title: `messages, translated stream (${chunks} chunks), 64 connections`,
      path: '/v1/messages',
      body: MESSAGES_TRANSLATED_STREAM_BODY,
      connections: 64,
      baseline: { path: '/v1/chat/completions', body: STREAM_BODY },
    },
    {
      id: 'bedrock-stream',
      title: `chat stream to Amazon Bedrock (ConverseStream, ${chunks} deltas), 64 connections`,
      path: '/v1/chat/completions',
      body: BEDROCK_STREAM_BODY,
      connections: 64,
      baseline: { path: `/model/${encodeURIComponent(BEDROCK_BENCH_MODEL)}/converse-stream`, body: CONVERSE_STREAM_BODY },
    },
    embeddings('float'),
    embeddings('base64'),
    { id: 'chat-1', title: 'chat, non-streaming, 1 connection', path: '/v1/chat/completions', body: CHAT_BODY, connections: 1 },
  ];
}
