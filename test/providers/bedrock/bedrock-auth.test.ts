import type { AwsCredentialIdentity } from '@smithy/types';
import { describe, expect, it } from 'vitest';
import { createBedrockAuth, EMPTY_CHAIN_RETRY_MS } from '../../../server/providers/bedrock/bedrock-auth';
import {
  converseReply,
  MOCK_ACCESS_KEY_ID,
  MOCK_REGION,
  MOCK_SECRET_ACCESS_KEY,
  startMockBedrockUpstream,
} from '../../helpers/mock-bedrock-upstream';
import { callOptions, chatRequest, chatTarget, NOW, staticCredentials, useHarness } from './harness';

describe('bedrock adapter: Signature V4 and credentials', () => {
  const harness = useHarness();

  it('fetches expiring credentials once, reuses them, and fetches new ones before they expire, with no request failing', async () => {
    let clock = NOW;
    const issued: AwsCredentialIdentity[] = [];
    // Temporary credentials valid for an hour, as the container or instance metadata hands them out.
    const source = (): Promise<AwsCredentialIdentity> => {
      const identity = {
        accessKeyId: MOCK_ACCESS_KEY_ID,
        secretAccessKey: MOCK_SECRET_ACCESS_KEY,
        sessionToken: `session-${issued.length + 1}`,
        expiration: new Date(clock + 60 * 60_000),
      };
      issued.push(identity);
      return Promise.resolve(identity);
    };
    // A mock on the same moving clock, so that its 15-minute check follows the adapter's.
    const upstream = await startMockBedrockUpstream({ now: () => clock });
    try {
      const adapter = harness.create({ credentials: source, now: () => clock, baseUrl: upstream.baseUrl });
      const call = async () => {
        upstream.reply(converseReply([{ text: 'ok' }]));
        const { completion } = await adapter.chat(chatRequest(), chatTarget, callOptions());
        expect(completion.choices[0]?.message.content).toBe('ok');
      };
      await Promise.all([call(), call(), call()]);
      expect(issued).toHaveLength(1);
      clock += 50 * 60_000;
      await call();
      expect(issued).toHaveLength(1);
      clock += 6 * 60_000; // four minutes before expiry: inside the refresh margin
      await call();
      await call();
      expect(issued).toHaveLength(2);
      expect(upstream.requests.map((request) => request.headers['x-amz-security-token'])).toEqual([
        'session-1',
        'session-1',
        'session-1',
        'session-1',
        'session-2',
        'session-2',
      ]);
    } finally {
      await upstream.close();
    }
  });

  it('runs a credential chain that found nothing again only after a while, not for every request', async () => {
    let clock = NOW;
    let runs = 0;
    let found = false;
    // The default chain rejects after trying every source (files, instance metadata, …) when none has credentials.
    const chain = (): Promise<AwsCredentialIdentity> => {
      runs++;
      if (!found) return Promise.reject(new Error('Could not load credentials from any providers'));
      return Promise.resolve({ accessKeyId: MOCK_ACCESS_KEY_ID, secretAccessKey: MOCK_SECRET_ACCESS_KEY });
    };
    const adapter = harness.create({ credentials: chain, now: () => clock });
    const refused = { code: 'upstream_unavailable', message: 'The provider "bedrock" has no usable AWS credentials.' };
    await expect(adapter.chat(chatRequest(), chatTarget, callOptions())).rejects.toMatchObject(refused);
    await expect(adapter.chat(chatRequest(), chatTarget, callOptions())).rejects.toMatchObject(refused);
    expect(runs).toBe(1);
    found = true;
    clock += EMPTY_CHAIN_RETRY_MS - 1;
    await expect(adapter.chat(chatRequest(), chatTarget, callOptions())).rejects.toMatchObject(refused);
    expect(runs).toBe(1);
    expect(harness.upstream.requests).toHaveLength(0);
    clock += 1;
    harness.upstream.reply(converseReply([{ text: 'ok' }]));
    const { completion } = await adapter.chat(chatRequest(), chatTarget, callOptions());
    expect(completion.choices[0]?.message.content).toBe('ok');
    expect(runs).toBe(2);
  });

  it('is refused when the body is changed after signing', async () => {
    const auth = createBedrockAuth({
      provider: 'bedrock',
      region: MOCK_REGION,
      apiKey: '',
      credentials: staticCredentials,
      now: () => NOW,
    });
    const url = new URL(`${harness.upstream.baseUrl}/model/amazon.nova-pro-v1%3A0/converse`);
    const body = JSON.stringify({ messages: [{ role: 'user', content: [{ text: 'Hello' }] }] });
    const headers = await auth({ url, headers: { 'content-type': 'application/json', accept: 'application/json' }, body });
    harness.upstream.reply(converseReply([{ text: 'ok' }]), converseReply([{ text: 'ok' }]));

    const tampered = await fetch(url, { method: 'POST', headers, body: body.replace('Hello', 'Hullo') });
    expect(tampered.status).toBe(403);
    expect(tampered.headers.get('x-amzn-errortype')).toMatch(/^InvalidSignatureException:/);

    const withoutHash = { ...headers };
    delete withoutHash['x-amz-content-sha256'];
    const rehashed = await fetch(url, { method: 'POST', headers: withoutHash, body: body.replace('Hello', 'Hullo') });
    expect(rehashed.status).toBe(403);

    const intact = await fetch(url, { method: 'POST', headers, body });
    expect(intact.status).toBe(200);
  });

  it('is refused when the signing date is more than 15 minutes off', async () => {
    const late = harness.create({ now: () => NOW + 16 * 60_000 });
    await expect(late.chat(chatRequest(), chatTarget, callOptions())).rejects.toMatchObject({ upstreamStatus: 403 });
  });
});
