import { describe, expect, it } from 'vitest';
import { modelEntry, upstreamSection } from '../e2e/helpers';
import { textResponseStream } from '../helpers/mock-openai-responses';
import {
  chatChunk,
  chatStreamReply,
  chatUsageChunk,
  startMockOpenAiUpstream,
  type MockOpenAiUpstream,
} from '../helpers/mock-openai-upstream';
import { useAgentGateway } from './agent-gateway';
import { codexInstalled, codexSayHi } from './codex-cli';
import type { AgentRun } from './run-agent-cli';

/**
 * The real Codex CLI (codex-cli.ts) against the gateway, with its default settings: a model
 * provider entry with `wire_api = "responses"` and nothing else. Codex sends POST /v1/responses with stream: true, developer messages,
 * function tools, a web_search and a namespace tool, reasoning, include, prompt_cache_key.
 * Translated (chat upstream) and passed through (an upstream with `responses_api: true`).
 */
const UPSTREAM_MODEL = 'gpt-5-mini-2026-01-01';
const CHAT_REPLY = 'Hi from the chat mock!';
const NATIVE_REPLY = 'Hi from the responses mock!';

function configYaml(chat: MockOpenAiUpstream, native: MockOpenAiUpstream): string {
  return `${upstreamSection(20_000)}
usage:
  flush_interval_ms: 100
providers:
  chat: { type: openai, base_url: ${chat.baseUrl} }
  native: { type: openai, base_url: ${native.baseUrl}, responses_api: true }
models:
${modelEntry('agent-chat', 'chat', UPSTREAM_MODEL, 'chat, function_calling, vision', 200_000, 'input_per_million: 1, output_per_million: 2')}
${modelEntry('agent-native', 'native', UPSTREAM_MODEL, 'chat, function_calling, vision', 200_000, 'input_per_million: 1, output_per_million: 2')}
`;
}

const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) => chatChunk(delta, finishReason, UPSTREAM_MODEL);

describe.skipIf(!codexInstalled)('the Codex CLI through the gateway', () => {
  const agent = useAgentGateway(
    async () => {
      const upstreams = { chat: await startMockOpenAiUpstream(), native: await startMockOpenAiUpstream() };
      upstreams.chat.setDefault(chatStreamReply([CHAT_REPLY], { prompt: 900, completion: 8 }, UPSTREAM_MODEL));
      upstreams.native.setDefault(
        textResponseStream(UPSTREAM_MODEL, ['Hi from the ', 'responses mock!'], { input: 800, output: 7, cached: 512 }),
      );
      return upstreams;
    },
    ({ chat, native }) => ({ configYaml: configYaml(chat, native) }),
    'codex-home-',
  );

  const codexWith = (model: string): Promise<AgentRun> => codexSayHi(agent.home, agent.gateway.baseUrl, agent.apiKey, model);

  const reportedRequests = () => agent.gateway.reportedRequests(agent.usageKey);

  it(
    'translated to a chat upstream: prints the mock reply, exits 0, the request is in the usage report',
    { timeout: 120_000 },
    async () => {
      const before = await reportedRequests();
      const run = await codexWith('agent-chat');
      expect(run.stdout + run.stderr).toContain(CHAT_REPLY);
      expect(run.code, run.stderr).toBe(0);
      const sent = agent.upstreams.chat.requests.at(-1)?.body as { stream?: boolean; messages?: { role: string }[]; tools?: unknown[] };
      expect(sent.stream).toBe(true);
      expect(sent.messages?.[0]?.role).toBe('system');
      // Its web_search and namespace tools are left out for a chat upstream; function tools go.
      expect((sent.tools as { type: string }[]).every((tool) => tool.type === 'function')).toBe(true);
      expect(sent.tools?.length).toBeGreaterThan(0);
      await expect.poll(reportedRequests, { timeout: 5_000 }).toBeGreaterThan(before);
    },
  );

  it('translated: a tool call round trip (Codex runs the command and sends its output back)', { timeout: 120_000 }, async () => {
    const count = agent.upstreams.chat.requests.length;
    agent.upstreams.chat.reply({
      type: 'sse',
      events: [
        {
          data: chunk({
            role: 'assistant',
            tool_calls: [{ index: 0, id: 'call_echo', type: 'function', function: { name: 'exec_command', arguments: '' } }],
          }),
        },
        { data: chunk({ tool_calls: [{ index: 0, function: { arguments: '{"cmd":"echo gateway-tool-test"}' } }] }) },
        { data: chunk({}, 'tool_calls') },
        { data: chatUsageChunk({ prompt: 900, completion: 12 }, UPSTREAM_MODEL) },
      ],
    });
    const run = await codexWith('agent-chat');
    expect(run.stdout + run.stderr).toContain(CHAT_REPLY);
    expect(run.code, run.stderr).toBe(0);
    const followUp = agent.upstreams.chat.requests[count + 1]?.body as {
      messages: { role: string; tool_call_id?: string; tool_calls?: { id: string }[] }[];
    };
    const messages = followUp.messages;
    expect(messages.some((message) => message.role === 'assistant' && message.tool_calls?.[0]?.id === 'call_echo')).toBe(true);
    expect(messages.some((message) => message.role === 'tool' && message.tool_call_id === 'call_echo')).toBe(true);
  });

  it(
    'passed through to a Responses upstream: prints the mock reply, exits 0, the request is in the usage report',
    { timeout: 120_000 },
    async () => {
      const before = await reportedRequests();
      const run = await codexWith('agent-native');
      expect(run.stdout + run.stderr).toContain(NATIVE_REPLY);
      expect(run.code, run.stderr).toBe(0);
      const sent = agent.upstreams.native.requests.at(-1)?.body as { model?: string; stream?: boolean; tools?: { type: string }[] };
      // Codex's default request, passed on as it came (only the model replaced).
      const body = agent.upstreams.native.requests.at(-1)?.body as Record<string, unknown>;
      expect((body.tools as { type: string }[]).map((tool) => tool.type)).toEqual(
        expect.arrayContaining(['function', 'namespace', 'web_search']),
      );
      expect(body).toMatchObject({
        store: false,
        include: ['reasoning.encrypted_content'],
        reasoning: { summary: 'auto' },
        prompt_cache_key: expect.any(String),
      });
      expect(sent.model).toBe(UPSTREAM_MODEL);
      expect(sent.stream).toBe(true);
      await expect.poll(reportedRequests, { timeout: 5_000 }).toBeGreaterThan(before);
    },
  );
});
