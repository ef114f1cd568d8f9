import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ChatCompletionRequest } from '../../../contract';
import { startMockVertexUpstream } from '../../helpers/mock-vertex-upstream';
import { callOptions, rejectionOf } from '../harness';
import { createVertexTestAdapter, GEMINI_TARGET } from './harness';

/**
 * Access tokens (docs/vertex.md, "Credentials"): fetched once and shared, refreshed before
 * they expire, never per request; a credential the token endpoint refuses is a 502 that
 * quotes nothing of the key.
 */

const REQUEST: ChatCompletionRequest = { model: 'flash', messages: [{ role: 'user', content: 'Hi' }] };
const OK = {
  type: 'json' as const,
  body: {
    candidates: [{ content: { role: 'model', parts: [{ text: 'ok' }] }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 },
  },
};
const MINUTE = 60_000;

describe('vertex access tokens', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('fetches one token for concurrent first requests and reuses it', async () => {
    const upstream = await startMockVertexUpstream();
    const vertex = createVertexTestAdapter(upstream, 'google');
    try {
      upstream.setDefault(OK);
      await Promise.all(Array.from({ length: 5 }, () => vertex.adapter.chat(REQUEST, GEMINI_TARGET, callOptions())));
      await vertex.adapter.chat(REQUEST, GEMINI_TARGET, callOptions());
      expect(upstream.issued).toHaveLength(1);
      expect(upstream.requests).toHaveLength(6);
      expect(new Set(upstream.requests.map((request) => request.headers.authorization))).toEqual(
        new Set([`Bearer ${upstream.issued[0]?.token}`]),
      );
      expect(upstream.refused).toEqual([]);
    } finally {
      await vertex.close();
      await upstream.close();
    }
  });

  it('refreshes the token before it expires, and no request is refused', async () => {
    // Only Date is faked: the auth library and the mock read the clock through it.
    vi.useFakeTimers({ toFake: ['Date'] });
    const start = Date.now();
    const upstream = await startMockVertexUpstream();
    const vertex = createVertexTestAdapter(upstream, 'google');
    try {
      upstream.setDefault(OK);
      const call = () => vertex.adapter.chat(REQUEST, GEMINI_TARGET, callOptions());
      await call();
      vi.setSystemTime(start + 30 * MINUTE);
      await call();
      expect(upstream.issued).toHaveLength(1);

      // Within five minutes of the first token's expiry (one hour): the next request gets a new one.
      vi.setSystemTime(start + 56 * MINUTE);
      await call();
      expect(upstream.issued).toHaveLength(2);
      const [first, second] = upstream.issued;
      expect(first!.expiresAt).toBeGreaterThan(Date.now());
      expect(upstream.requests.at(-1)?.headers.authorization).toBe(`Bearer ${second?.token}`);

      // Past the first token's expiry the second one serves.
      vi.setSystemTime(start + 70 * MINUTE);
      await call();
      expect(upstream.issued).toHaveLength(2);
      expect(upstream.refused).toEqual([]);
      expect(upstream.requests).toHaveLength(4);
    } finally {
      await vertex.close();
      await upstream.close();
    }
  });

  it('exchanges a workload identity federation credential at its token_url', async () => {
    const upstream = await startMockVertexUpstream();
    const vertex = createVertexTestAdapter(upstream, 'google', { credentialsFile: upstream.externalAccountFile });
    try {
      upstream.reply(OK);
      const result = await vertex.adapter.chat(REQUEST, GEMINI_TARGET, callOptions());
      expect(result.completion.choices[0]?.message.content).toBe('ok');
      expect(upstream.issued.map((entry) => entry.grant)).toEqual(['token-exchange']);
      expect(upstream.requests[0]?.headers.authorization).toBe(`Bearer ${upstream.issued[0]?.token}`);
    } finally {
      await vertex.close();
      await upstream.close();
    }
  });

  it('answers a key the token endpoint refuses with a 502 that quotes nothing of the key, and calls no model', async () => {
    const upstream = await startMockVertexUpstream();
    // The same account with another key: the signature does not verify.
    const { generateKeyPairSync } = await import('node:crypto');
    const { readFileSync } = await import('node:fs');
    const account = JSON.parse(readFileSync(upstream.serviceAccountFile, 'utf8')) as Record<string, unknown>;
    const otherKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const wrongFile = join(upstream.serviceAccountFile, '..', 'wrong-key.json');
    writeFileSync(wrongFile, JSON.stringify({ ...account, private_key: otherKey }));
    const vertex = createVertexTestAdapter(upstream, 'google', { credentialsFile: wrongFile });
    try {
      const error = await rejectionOf(vertex.adapter.chat(REQUEST, GEMINI_TARGET, callOptions()));
      expect(error).toMatchObject({ status: 502, code: 'upstream_unavailable', retryable: false });
      expect((error as Error).message).toBe(
        'The provider "vertex" could not get a Google access token: the token endpoint answered HTTP 400.',
      );
      expect(upstream.issued).toEqual([]);
      expect(upstream.requests).toEqual([]);
    } finally {
      await vertex.close();
      await upstream.close();
    }
  });

  it('answers an unreadable key file with a 502 that does not quote the file', async () => {
    const upstream = await startMockVertexUpstream();
    const brokenFile = join(upstream.serviceAccountFile, '..', 'broken.json');
    writeFileSync(brokenFile, '-----BEGIN PRIVATE KEY----- secret material');
    const vertex = createVertexTestAdapter(upstream, 'google', { credentialsFile: brokenFile });
    try {
      const error = await rejectionOf(vertex.adapter.chat(REQUEST, GEMINI_TARGET, callOptions()));
      expect(error).toMatchObject({ status: 502, code: 'upstream_unavailable' });
      expect((error as Error).message).not.toContain('secret');
      expect((error as Error).message).not.toContain('BEGIN');
    } finally {
      await vertex.close();
      await upstream.close();
    }
  });
});
