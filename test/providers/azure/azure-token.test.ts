import type { AccessToken, TokenCredential } from '@azure/identity';
import { describe, expect, it } from 'vitest';
import { COGNITIVE_SERVICES_SCOPE, createCachedTokenSource } from '../../../server/providers/azure/azure-token';
import { UpstreamError } from '../../../server/errors/gateway-error';
import { azureCompletionReply } from '../../helpers/mock-azure-upstream';
import { chatRequest, chatTarget, FIXED_NOW, rejection, useHarness } from './harness';

const HOUR = 3_600_000;

/** A TokenCredential that hands out numbered tokens valid for an hour from the clock, and records each call. */
class CountingCredential implements TokenCredential {
  calls: string[][] = [];
  failNext = false;
  constructor(private readonly clock: { now: number }) {}
  async getToken(scopes: string | string[]): Promise<AccessToken | null> {
    this.calls.push(typeof scopes === 'string' ? [scopes] : scopes);
    if (this.failNext) {
      this.failNext = false;
      throw new Error('AADSTS7000215: Invalid client secret provided for tenant 72f988bf.');
    }
    return { token: `token-${this.calls.length}`, expiresOnTimestamp: this.clock.now + HOUR };
  }
}

describe('the Entra token cache', () => {
  it('obtains one token for many requests, for the Cognitive Services scope', async () => {
    const clock = { now: FIXED_NOW };
    const credential = new CountingCredential(clock);
    const source = createCachedTokenSource(credential, 'azure', () => clock.now);
    const tokens = await Promise.all([source.token(), source.token(), source.token()]);
    clock.now += 30 * 60_000;
    tokens.push(await source.token());
    expect(tokens).toEqual(['token-1', 'token-1', 'token-1', 'token-1']);
    expect(credential.calls).toEqual([[COGNITIVE_SERVICES_SCOPE]]);
  });

  it('renews a due token in the background while the current one is still sent', async () => {
    const clock = { now: FIXED_NOW };
    const credential = new CountingCredential(clock);
    const source = createCachedTokenSource(credential, 'azure', () => clock.now);
    await source.token();
    clock.now += HOUR - 4 * 60_000; // within five minutes of expiry
    expect(await source.token()).toBe('token-1');
    expect(await source.token()).toBe('token-2');
    expect(credential.calls).toHaveLength(2);
  });

  it("renews at the credential's refreshAfterTimestamp when it gives one", async () => {
    const clock = { now: FIXED_NOW };
    let issued = 0;
    const source = createCachedTokenSource(
      {
        getToken: async () => ({
          token: `t${++issued}`,
          expiresOnTimestamp: clock.now + HOUR,
          refreshAfterTimestamp: clock.now + 10 * 60_000,
        }),
      },
      'azure',
      () => clock.now,
    );
    await source.token();
    clock.now += 11 * 60_000;
    await source.token();
    expect(await source.token()).toBe('t2');
  });

  it('waits for a fresh token once the cached one expired', async () => {
    const clock = { now: FIXED_NOW };
    const credential = new CountingCredential(clock);
    const source = createCachedTokenSource(credential, 'azure', () => clock.now);
    await source.token();
    clock.now += HOUR + 1;
    expect(await source.token()).toBe('token-2');
  });

  it('a credential failure: 502 that does not quote the identity platform, tried again next time', async () => {
    const clock = { now: FIXED_NOW };
    const credential = new CountingCredential(clock);
    credential.failNext = true;
    const source = createCachedTokenSource(credential, 'azure', () => clock.now);
    const error = await rejection(source.token());
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as UpstreamError).toBody().error).toEqual({
      message: 'The provider "azure" could not obtain a Microsoft Entra access token.',
      type: 'upstream_error',
      param: null,
      code: 'upstream_unavailable',
    });
    expect(await source.token()).toBe('token-2');
  });
});

describe('azure adapter: auth entra_credential', () => {
  /** The first token is due for renewal at once (its refreshAfterTimestamp has passed), the next ones are not. */
  const issued: string[] = [];
  const credential: TokenCredential = {
    getToken: async (scopes) => {
      issued.push(String(scopes));
      const due = issued.length === 1 ? FIXED_NOW - 1 : FIXED_NOW + HOUR / 2;
      return { token: `token-${issued.length}`, expiresOnTimestamp: FIXED_NOW + HOUR, refreshAfterTimestamp: due };
    },
  };
  const harness = useHarness({
    providerOptions: { auth: 'entra_credential' },
    credential,
    upstream: { acceptedTokens: new Set(['token-1', 'token-2']) },
  });

  it('sends the bearer token (no api-key), renews it in the background once due, no request failing', async () => {
    const reply = azureCompletionReply({ content: 'a' }, { prompt: 1, completion: 1 });
    harness.upstream.reply(reply, reply, reply, reply);
    for (let count = 0; count < 4; count++) await harness.adapter.chat(chatRequest(), chatTarget, harness.options());
    expect(harness.upstream.requests.map((request) => [request.headers.authorization, request.headers['api-key']])).toEqual([
      ['Bearer token-1', undefined],
      ['Bearer token-1', undefined],
      ['Bearer token-2', undefined],
      ['Bearer token-2', undefined],
    ]);
    expect(issued).toEqual([COGNITIVE_SERVICES_SCOPE, COGNITIVE_SERVICES_SCOPE]);
  });
});

describe('azure adapter: auth entra_token', () => {
  const harness = useHarness({
    providerOptions: { auth: 'entra_token' },
    upstream: { acceptedTokens: new Set(['8f3c1a2b4d5e6f708192a3b4c5d6e7f8']) },
  });

  it('sends the variable as a bearer token', async () => {
    harness.upstream.reply(azureCompletionReply({ content: 'a' }, { prompt: 1, completion: 1 }));
    await harness.adapter.chat(chatRequest(), chatTarget, harness.options());
    expect(harness.upstream.requests[0]?.headers.authorization).toBe('Bearer 8f3c1a2b4d5e6f708192a3b4c5d6e7f8');
    expect(harness.upstream.requests[0]?.headers['api-key']).toBeUndefined();
  });
});
