import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { promptCacheResponder, startMockOpenAiUpstream, type MockOpenAiUpstream } from '../helpers/mock-openai-upstream';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway';
import { LETTERS, useFleet, type Letter } from './fleet';

/**
 * docs/routing.md, "Session affinity": an agent's session stays on the deployment that holds
 * its prompt cache. Three upstreams each keep their own cache (promptCacheResponder).
 */

const TURNS = 20;

function agentConfig(upstreams: Record<Letter, MockOpenAiUpstream>): string {
  const model = (id: string, affinity: string) => `
  - id: ${id}
    routing: { affinity: ${affinity} }
    capabilities: [chat]
    context_window: 200000
    pricing: { input_per_million: 3, output_per_million: 15, cache_read_per_million: 0.3 }
    deployments:
${LETTERS.map((letter) => `      - { id: ${id}-${letter}, provider: up-${letter} }`).join('\n')}`;
  return `
limits: { default_rpm: 100000, default_tpm: 1000000000 }
providers:
${LETTERS.map((letter) => `  up-${letter}: { type: openai, base_url: ${upstreams[letter].baseUrl} }`).join('\n')}
models:${model('agent', 'session')}${model('agent-free', 'none')}
`;
}

interface Turn {
  deployment: string;
  prompt: number;
  cached: number;
  costUsd: number;
}

interface SessionRun {
  turns: Turn[];
  /** Of the prompt tokens from the second turn on (the first can hit no cache), the share read from the cache. */
  cachedShare: number;
  spendUsd: number;
}

function summary(turns: Turn[]): SessionRun {
  const later = turns.slice(1);
  const prompt = later.reduce((sum, turn) => sum + turn.prompt, 0);
  const cached = later.reduce((sum, turn) => sum + turn.cached, 0);
  return { turns, cachedShare: cached / prompt, spendUsd: turns.reduce((sum, turn) => sum + turn.costUsd, 0) };
}

/** A large system prompt (Claude Code's and Codex's are several thousand tokens), unique per run. */
const systemPrompt = () =>
  `You are a coding agent ${randomBytes(8).toString('hex')}. ${'Follow the repository conventions. '.repeat(1000)}`;
const toolResult = (turn: number) => `Tool result of turn ${turn}: ${'file contents line\n'.repeat(80)}`;

/** How one agent speaks: its route, its session's headers, its request, and where its reply puts the text and the prompt's tokens. */
interface AgentShape {
  path: '/v1/messages' | '/v1/responses';
  headers(key: string, session: string): Record<string, string>;
  body(model: string, system: string, history: { role: string; content: string }[], session: string): object;
  reply(body: Record<string, unknown>): { text: string; prompt: number; cached: number };
}

/** Claude Code on /v1/messages: its session header and the session in metadata.user_id. */
const CLAUDE_CODE: AgentShape = {
  path: '/v1/messages',
  headers: (key, session) => ({ 'x-api-key': key, 'x-claude-code-session-id': session }),
  body: (model, system, messages, session) => ({
    model,
    max_tokens: 100,
    system,
    metadata: { user_id: `user_0a1b_account_c2d3_session_${session}` },
    messages,
  }),
  reply: (body) => {
    const { content, usage } = body as {
      content: { text: string }[];
      usage: { input_tokens: number; cache_read_input_tokens?: number; cache_creation_input_tokens?: number };
    };
    const cached = usage.cache_read_input_tokens ?? 0;
    return { text: content[0]?.text ?? '', prompt: usage.input_tokens + cached + (usage.cache_creation_input_tokens ?? 0), cached };
  },
};

/** Claude Code's requests with the session in metadata.user_id only (no session header). */
const CLAUDE_CODE_METADATA_ONLY: AgentShape = { ...CLAUDE_CODE, headers: (key) => ({ 'x-api-key': key }) };

/** Codex on /v1/responses: its session_id header and the body's prompt_cache_key. */
const CODEX: AgentShape = {
  path: '/v1/responses',
  headers: (key, session) => ({ authorization: `Bearer ${key}`, session_id: session }),
  body: (model, instructions, input, session) => ({ model, instructions, input, prompt_cache_key: session, store: false }),
  reply: (body) => {
    const { output, usage } = body as {
      output: { content?: { text?: string }[] }[];
      usage: { input_tokens: number; input_tokens_details?: { cached_tokens?: number } };
    };
    return {
      text: output[0]?.content?.[0]?.text ?? 'done',
      prompt: usage.input_tokens,
      cached: usage.input_tokens_details?.cached_tokens ?? 0,
    };
  },
};

/** A session of TURNS turns of `agent`: a large system prompt, and a conversation that grows by a tool result per turn. */
async function runSession(gateway: TestGateway, key: string, model: string, agent: AgentShape): Promise<SessionRun> {
  const session = randomBytes(16).toString('hex');
  const system = systemPrompt();
  const history: { role: string; content: string }[] = [];
  const turns: Turn[] = [];
  for (let turn = 1; turn <= TURNS; turn++) {
    history.push({ role: 'user', content: toolResult(turn) });
    const response = await gateway.http
      .post(agent.path)
      .set(agent.headers(key, session))
      .send(agent.body(model, system, history, session))
      .expect(200);
    const { text, prompt, cached } = agent.reply(response.body as Record<string, unknown>);
    turns.push({
      deployment: response.headers['x-gateway-deployment'] as string,
      prompt,
      cached,
      costUsd: Number(response.headers['x-gateway-cost-usd']),
    });
    history.push({ role: 'assistant', content: text });
  }
  return summary(turns);
}

describe('session affinity keeps an agent session on the deployment that holds its prompt cache', () => {
  const upstreams = {} as Record<Letter, MockOpenAiUpstream>;
  let gateway: TestGateway;
  let key = '';

  beforeAll(async () => {
    for (const letter of LETTERS) {
      upstreams[letter] = await startMockOpenAiUpstream();
      upstreams[letter].respondWith(promptCacheResponder(`Done on ${letter}.`));
    }
    gateway = await startTestGateway({ configYaml: agentConfig(upstreams) });
    key = (await gateway.createKey(await gateway.createAccount())).key;
  });
  afterAll(async () => {
    await gateway?.close();
    for (const letter of LETTERS) await upstreams[letter]?.close();
  });

  for (const [name, agent] of [
    ['Claude Code', CLAUDE_CODE],
    ['Claude Code (metadata.user_id only)', CLAUDE_CODE_METADATA_ONLY],
    ['Codex', CODEX],
  ] as const) {
    it(`a ${TURNS}-turn ${name}-like session lands on one deployment and reads at least 95% of its prompt from the cache`, async () => {
      const pinned = await runSession(gateway, key, 'agent', agent);
      expect(new Set(pinned.turns.map((turn) => turn.deployment)).size).toBe(1);
      expect(pinned.cachedShare).toBeGreaterThanOrEqual(0.95);

      const spread = await runSession(gateway, key, 'agent-free', agent);
      expect(new Set(spread.turns.map((turn) => turn.deployment)).size).toBeGreaterThan(1);
      expect(spread.cachedShare).toBeLessThan(pinned.cachedShare - 0.01);
      // What is billed shows it: cache reads cost a tenth of the input price.
      expect(spread.spendUsd).toBeGreaterThan(pinned.spendUsd);
    });
  }
});

describe('session bindings', () => {
  const fleet = useFleet({ routing: '{ strategy: priority, affinity: session, affinity_ttl: 600 }' });
  const send = async (key: string, session: string): Promise<string> => {
    const response = await fleet.gateway.chat(key, { model: 'fleet' }).set('x-session-id', session).expect(200);
    return response.headers['x-gateway-deployment'] as string;
  };
  const rateLimited = (seconds: number) => ({
    type: 'json' as const,
    status: 429,
    headers: { 'retry-after': String(seconds) },
    body: { error: { message: 'slow down', type: 'requests', param: null, code: null } },
  });

  it('are scoped to the key, refreshed on use, expire after affinity_ttl, and move once when their deployment cools down', async () => {
    const session = `s-${randomBytes(4).toString('hex')}`;
    // dep-a rate-limited for 30 s: the session starts on dep-b.
    fleet.upstreams.a.reply(rateLimited(30));
    expect(await send(fleet.key, session)).toBe('dep-b');
    fleet.clock.now += 31_000;
    // dep-a is back: the session stays on dep-b; another key with the same session id is not bound.
    expect(await send(fleet.key, session)).toBe('dep-b');
    const other = (await fleet.gateway.createKey(await fleet.gateway.createAccount())).key;
    expect(await send(other, session)).toBe('dep-a');
    // Used within the TTL, the binding lives on.
    fleet.clock.now += 500_000;
    expect(await send(fleet.key, session)).toBe('dep-b');
    fleet.clock.now += 500_000;
    expect(await send(fleet.key, session)).toBe('dep-b');

    // dep-b fails: the session moves to dep-a once and sticks there when dep-b is back.
    fleet.upstreams.b.reply(rateLimited(5));
    expect(await send(fleet.key, session)).toBe('dep-a');
    fleet.clock.now += 6_000;
    expect(await send(fleet.key, session)).toBe('dep-a');

    // Unused for longer than the TTL, it is gone: the strategy chooses again.
    fleet.upstreams.a.reply(rateLimited(5));
    fleet.clock.now += 601_000;
    expect(await send(fleet.key, session)).toBe('dep-b');
  });

  it('counts hits and misses per model in the metrics', async () => {
    const session = `s-${randomBytes(4).toString('hex')}`;
    await send(fleet.key, session);
    await send(fleet.key, session);
    const metrics = await fleet.gateway.http.get('/metrics').expect(200);
    expect(metrics.text).toMatch(/gateway_affinity_total\{model="fleet",outcome="hit"\} [1-9]/);
    expect(metrics.text).toMatch(/gateway_affinity_total\{model="fleet",outcome="miss"\} [1-9]/);
  });
});

describe('prefix affinity', () => {
  const fleet = useFleet({ routing: '{ affinity: prefix }' });

  it('sends requests with the same system prompt and first message to one deployment, and different ones across them', async () => {
    const same = new Set<string>();
    for (let index = 0; index < 12; index++) {
      const response = await fleet.gateway
        .chat(fleet.key, {
          model: 'fleet',
          messages: [
            { role: 'system', content: 'You review code.' },
            { role: 'user', content: 'Review this diff.' },
            { role: 'assistant', content: `Reply ${index}` },
            { role: 'user', content: `Follow-up ${index}` },
          ],
        })
        .expect(200);
      same.add(response.headers['x-gateway-deployment'] as string);
    }
    expect(same.size).toBe(1);
    const spread = new Set<string>();
    for (let index = 0; index < 30; index++) {
      const response = await fleet.gateway
        .chat(fleet.key, { model: 'fleet', messages: [{ role: 'user', content: `Question ${index}` }] })
        .expect(200);
      spread.add(response.headers['x-gateway-deployment'] as string);
    }
    expect(spread.size).toBeGreaterThan(1);
  });
});
