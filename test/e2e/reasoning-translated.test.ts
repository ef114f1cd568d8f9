import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  events as anthropicEvents,
  messageBody,
  startMockAnthropicUpstream,
  type MockAnthropicUpstream,
} from '../helpers/mock-anthropic-upstream';
import { startMockGeminiUpstream, type MockGeminiUpstream } from '../helpers/mock-gemini-upstream';
import { chatChunk, chatUsageChunk, startMockOpenAiUpstream, type MockOpenAiUpstream } from '../helpers/mock-openai-upstream';
import { startE2e, upstreamSection, type E2e } from './helpers';

/**
 * Thinking <-> reasoning on the translated routes (docs/chat-and-streaming.md, "Reasoning";
 * docs/anthropic-messages.md, "Thinking"; docs/openai-responses.md, "Reasoning"), with the
 * official SDKs: what the request asked for reaches each upstream type in its own terms, and
 * the upstream's reasoning text comes back as `thinking` blocks, reasoning items or
 * `reasoning_content`, streamed and not.
 */
function configYaml(openai: MockOpenAiUpstream, anthropic: MockAnthropicUpstream, gemini: MockGeminiUpstream): string {
  return `${upstreamSection()}
providers:
  oai: { type: openai, base_url: ${openai.baseUrl}, api_key_env: R_OPENAI_KEY }
  claude: { type: anthropic, base_url: ${anthropic.baseUrl}, api_key_env: R_ANTHROPIC_KEY }
  google: { type: gemini, base_url: ${gemini.baseUrl}, api_key_env: R_GEMINI_KEY }
models:
  - { id: oai-chat, provider: oai, capabilities: [chat, reasoning], context_window: 200000, pricing: { input_per_million: 1, output_per_million: 2 } }
  - { id: claude-chat, provider: claude, capabilities: [chat, reasoning], context_window: 200000, pricing: { input_per_million: 1, output_per_million: 2 } }
  - { id: gemini-chat, provider: google, capabilities: [chat, reasoning], context_window: 200000, pricing: { input_per_million: 1, output_per_million: 2 } }
  - { id: gemini-plain, provider: google, capabilities: [chat], context_window: 200000, pricing: { input_per_million: 1, output_per_million: 2 } }
  - { id: claude-plain, provider: claude, capabilities: [chat], context_window: 200000, pricing: { input_per_million: 1, output_per_million: 2 } }
`;
}

const openAiCompletion = (message: Record<string, unknown>) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1_767_225_600,
  model: 'm',
  choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 9, completion_tokens: 20, total_tokens: 29, completion_tokens_details: { reasoning_tokens: 12 } },
});
/** The anthropic upstream's JSON reply: a signed thinking block, then the text. */
const anthropicThinkingReply = (thinking: string, signature: string, text: string) => ({
  type: 'json' as const,
  body: messageBody(
    [
      { type: 'thinking', thinking, signature },
      { type: 'text', text },
    ],
    'end_turn',
  ),
});
/** A Messages reply's content as the translation makes it: the reasoning as a thinking block (no signature), then the text. */
const thinkingThenText = (thinking: string, text: string) => [
  { type: 'thinking', thinking, signature: '' },
  { type: 'text', text },
];
const openAiChunk = (delta: Record<string, unknown>, finishReason: string | null = null) => chatChunk(delta, finishReason, 'm');
const openAiUsageChunk = chatUsageChunk({ prompt: 9, completion: 20 }, 'm');

const geminiReply = (parts: Record<string, unknown>[], finishReason: string | null = 'STOP') => ({
  candidates: [{ index: 0, content: { role: 'model', parts }, ...(finishReason ? { finishReason } : {}) }],
  usageMetadata: { promptTokenCount: 8, candidatesTokenCount: 3, thoughtsTokenCount: 10, totalTokenCount: 21 },
});

describe('e2e: thinking <-> reasoning on translated paths', () => {
  let openai: MockOpenAiUpstream;
  let anthropic: MockAnthropicUpstream;
  let gemini: MockGeminiUpstream;
  let e2e: E2e;
  let claude: Anthropic;
  beforeAll(async () => {
    [openai, anthropic, gemini] = await Promise.all([startMockOpenAiUpstream(), startMockAnthropicUpstream(), startMockGeminiUpstream()]);
    e2e = await startE2e({
      configYaml: configYaml(openai, anthropic, gemini),
      env: { R_OPENAI_KEY: 'sk-o', R_ANTHROPIC_KEY: 'sk-ant-a', R_GEMINI_KEY: 'g-key' },
    });
    claude = new Anthropic({ apiKey: e2e.apiKey, baseURL: e2e.gateway.baseUrl, maxRetries: 0 });
  });
  beforeEach(() => {
    openai.requests.length = 0;
    anthropic.requests.length = 0;
    gemini.requests.length = 0;
  });
  afterAll(async () => {
    await e2e?.close();
    await Promise.all([openai?.close(), anthropic?.close(), gemini?.close()]);
  });

  describe('/v1/messages', () => {
    it('openai upstream: budget_tokens becomes reasoning_effort; reasoning_content a thinking block before the text', async () => {
      openai.reply({ type: 'json', body: openAiCompletion({ reasoning_content: 'Let me think.', content: 'Hi' }) });
      const message = await claude.messages.create({
        model: 'oai-chat',
        max_tokens: 20000,
        thinking: { type: 'enabled', budget_tokens: 8000 },
        messages: [{ role: 'user', content: 'Hello' }],
      });
      expect((openai.requests[0]?.body as Record<string, unknown>).reasoning_effort).toBe('medium');
      expect(message.content).toEqual(thinkingThenText('Let me think.', 'Hi'));
      expect(message.usage.output_tokens).toBe(20);
    });

    it('openai upstream, streamed: reasoning deltas become a thinking block with thinking_delta events', async () => {
      openai.reply({
        type: 'sse',
        events: [
          { data: openAiChunk({ role: 'assistant', reasoning_content: 'Step 1. ' }) },
          { data: openAiChunk({ reasoning_content: 'Step 2.' }) },
          { data: openAiChunk({ content: 'Done' }) },
          { data: openAiChunk({}, 'stop') },
          { data: openAiUsageChunk },
        ],
      });
      const stream = await claude.messages.create({
        model: 'oai-chat',
        max_tokens: 3000,
        thinking: { type: 'enabled', budget_tokens: 2000 },
        messages: [{ role: 'user', content: 'Hello' }],
        stream: true,
      });
      const received: Anthropic.RawMessageStreamEvent[] = [];
      for await (const event of stream) received.push(event);
      expect((openai.requests[0]?.body as Record<string, unknown>).reasoning_effort).toBe('low');
      expect(received.filter((event) => event.type === 'content_block_start').map((event) => event.content_block)).toEqual([
        { type: 'thinking', thinking: '', signature: '' },
        { type: 'text', text: '' },
      ]);
      const deltas = received.flatMap((event) => (event.type === 'content_block_delta' ? [{ index: event.index, ...event.delta }] : []));
      expect(deltas).toEqual([
        { index: 0, type: 'thinking_delta', thinking: 'Step 1. ' },
        { index: 0, type: 'thinking_delta', thinking: 'Step 2.' },
        { index: 1, type: 'text_delta', text: 'Done' },
      ]);
    });

    it('gemini upstream: the budget as thinkingConfig with thoughts included; thought parts a thinking block', async () => {
      gemini.reply({ type: 'json', body: geminiReply([{ text: 'Pondering.', thought: true }, { text: 'Answer' }]) });
      const message = await claude.messages.create({
        model: 'gemini-chat',
        max_tokens: 9000,
        thinking: { type: 'enabled', budget_tokens: 3000 },
        messages: [{ role: 'user', content: 'Hello' }],
      });
      const body = gemini.requests[0]?.body as { generationConfig: Record<string, unknown> };
      expect(body.generationConfig.thinkingConfig).toEqual({ thinkingBudget: 3000, includeThoughts: true });
      expect(message.content).toEqual(thinkingThenText('Pondering.', 'Answer'));
      expect(message.usage.output_tokens).toBe(13);
    });

    it('gemini upstream, streamed, adaptive thinking: a dynamic budget; thought parts stream as thinking', async () => {
      gemini.reply({
        type: 'sse',
        events: [
          { candidates: [{ index: 0, content: { role: 'model', parts: [{ text: 'Hmm.', thought: true }] } }] },
          geminiReply([{ text: 'Yes' }]),
        ],
      });
      const stream = claude.messages.stream({
        model: 'gemini-chat',
        max_tokens: 500,
        thinking: { type: 'adaptive' },
        messages: [{ role: 'user', content: 'Hello' }],
      });
      const message = await stream.finalMessage();
      const body = gemini.requests[0]?.body as { generationConfig: Record<string, unknown> };
      expect(body.generationConfig.thinkingConfig).toEqual({ thinkingBudget: -1, includeThoughts: true });
      expect(message.content).toEqual(thinkingThenText('Hmm.', 'Yes'));
    });

    it('a model without the reasoning capability gets no reasoning settings', async () => {
      gemini.reply({ type: 'json', body: geminiReply([{ text: 'Plain' }]) });
      const message = await claude.messages.create({
        model: 'gemini-plain',
        max_tokens: 5000,
        thinking: { type: 'enabled', budget_tokens: 2000 },
        messages: [{ role: 'user', content: 'Hello' }],
      });
      expect((gemini.requests[0]?.body as { generationConfig: Record<string, unknown> }).generationConfig.thinkingConfig).toBeUndefined();
      expect(message.content).toEqual([{ type: 'text', text: 'Plain' }]);
      anthropic.reply({ type: 'json', body: messageBody([{ type: 'text', text: 'ok' }], 'end_turn') });
      await e2e.client.responses.create({ model: 'claude-plain', input: 'Hello', reasoning: { effort: 'high' } });
      expect((anthropic.requests[0]?.body as Record<string, unknown>).thinking).toBeUndefined();
    });

    it('thinking disabled or absent: nothing about reasoning reaches the upstream', async () => {
      gemini.reply({ type: 'json', body: geminiReply([{ text: 'Plain' }]) });
      await claude.messages.create({
        model: 'gemini-chat',
        max_tokens: 100,
        thinking: { type: 'disabled' },
        messages: [{ role: 'user', content: 'Hello' }],
      });
      expect((gemini.requests[0]?.body as { generationConfig: Record<string, unknown> }).generationConfig.thinkingConfig).toBeUndefined();
    });
  });

  describe('/v1/responses', () => {
    it('anthropic upstream: effort becomes a thinking budget; thinking blocks a reasoning item when a summary is asked for', async () => {
      anthropic.reply(anthropicThinkingReply('Considering.', 'sig-1', 'Done'));
      const response = await e2e.client.responses.create({
        model: 'claude-chat',
        input: 'Hello',
        max_output_tokens: 4000,
        temperature: 0.3,
        reasoning: { effort: 'low', summary: 'auto' },
      });
      const body = anthropic.requests[0]?.body as Record<string, unknown>;
      expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
      expect(body.temperature).toBeUndefined();
      expect(response.output[0]).toMatchObject({ type: 'reasoning', summary: [{ type: 'summary_text', text: 'Considering.' }] });
      expect(response.output_text).toBe('Done');
      expect(response.reasoning?.summary).toBe('auto');
    });

    it('anthropic upstream, streamed: thinking deltas become reasoning summary events, then the text', async () => {
      anthropic.reply({
        type: 'sse',
        events: [
          anthropicEvents.messageStart(10),
          { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '' } },
          { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'A, ' } },
          { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'then B.' } },
          { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'sig' } },
          anthropicEvents.blockStop(0),
          anthropicEvents.textStart(1),
          anthropicEvents.textDelta(1, 'Answer'),
          anthropicEvents.blockStop(1),
          anthropicEvents.messageDelta('end_turn', 30),
          anthropicEvents.messageStop(),
        ],
      });
      const stream = e2e.client.responses.stream({
        model: 'claude-chat',
        input: 'Hello',
        max_output_tokens: 30000,
        reasoning: { effort: 'high', summary: 'detailed' },
      });
      const types: string[] = [];
      const summaryDeltas: string[] = [];
      for await (const event of stream) {
        types.push(event.type);
        if (event.type === 'response.reasoning_summary_text.delta') summaryDeltas.push(event.delta);
      }
      const final = await stream.finalResponse();
      expect((anthropic.requests[0]?.body as Record<string, unknown>).thinking).toEqual({ type: 'enabled', budget_tokens: 24576 });
      expect(summaryDeltas).toEqual(['A, ', 'then B.']);
      expect(types.indexOf('response.reasoning_summary_part.added')).toBeLessThan(types.indexOf('response.output_text.delta'));
      expect(types).toContain('response.reasoning_summary_text.done');
      expect(final.output[0]).toMatchObject({ type: 'reasoning', summary: [{ type: 'summary_text', text: 'A, then B.' }] });
      expect(final.output[1]).toMatchObject({ type: 'message', content: [{ type: 'output_text', text: 'Answer' }] });
      expect(final.usage?.output_tokens).toBe(30);
    });

    it('openai-compatible upstream without reasoning.summary: the effort is passed on, the reasoning not shown', async () => {
      openai.reply({ type: 'json', body: openAiCompletion({ reasoning_content: 'Hidden.', content: 'Shown' }) });
      const response = await e2e.client.responses.create({ model: 'oai-chat', input: 'Hello', reasoning: { effort: 'high' } });
      expect((openai.requests[0]?.body as Record<string, unknown>).reasoning_effort).toBe('high');
      expect(response.output.map((item) => item.type)).toEqual(['message']);
      expect(response.usage?.output_tokens_details.reasoning_tokens).toBe(12);
    });

    it('gemini upstream: the effort as a thinking budget', async () => {
      gemini.reply({ type: 'json', body: geminiReply([{ text: 'T', thought: true }, { text: 'A' }]) });
      const response = await e2e.client.responses.create({
        model: 'gemini-chat',
        input: 'Hello',
        reasoning: { effort: 'medium', summary: 'concise' },
      });
      const body = gemini.requests[0]?.body as { generationConfig: Record<string, unknown> };
      expect(body.generationConfig.thinkingConfig).toEqual({ thinkingBudget: 8192, includeThoughts: true });
      expect(response.output[0]).toMatchObject({ type: 'reasoning', summary: [{ type: 'summary_text', text: 'T' }] });
    });
  });

  describe('/v1/chat/completions', () => {
    it('shows the reasoning as reasoning_content, streamed and not (anthropic and gemini upstreams)', async () => {
      anthropic.reply(anthropicThinkingReply('Why not.', 's', 'OK'));
      const completion = await e2e.client.chat.completions.create({
        model: 'claude-chat',
        max_tokens: 5000,
        reasoning_effort: 'medium',
        messages: [{ role: 'user', content: 'Hello' }],
      });
      expect((anthropic.requests[0]?.body as Record<string, unknown>).thinking).toEqual({ type: 'enabled', budget_tokens: 4999 });
      expect((completion.choices[0]?.message as unknown as Record<string, unknown>).reasoning_content).toBe('Why not.');
      expect(completion.choices[0]?.message.content).toBe('OK');

      gemini.reply({
        type: 'sse',
        events: [
          { candidates: [{ index: 0, content: { role: 'model', parts: [{ text: 'Idea.', thought: true }] } }] },
          geminiReply([{ text: 'Fine' }]),
        ],
      });
      const stream = await e2e.client.chat.completions.create({
        model: 'gemini-chat',
        messages: [{ role: 'user', content: 'Hello' }],
        stream: true,
      });
      let reasoning = '';
      let content = '';
      for await (const chunk of stream) {
        // The OpenAI SDK's type has no `reasoning_content` (OpenAI-compatible servers' field, docs/chat-and-streaming.md).
        const delta: { reasoning_content?: string; content?: string | null } | undefined = chunk.choices[0]?.delta;
        reasoning += delta?.reasoning_content ?? '';
        content += delta?.content ?? '';
      }
      expect(reasoning).toBe('Idea.');
      expect(content).toBe('Fine');
      // No reasoning asked for: Gemini's default thinking, no thinkingConfig sent.
      expect((gemini.requests[0]?.body as { generationConfig?: Record<string, unknown> }).generationConfig?.thinkingConfig).toBeUndefined();
    });
  });
});
