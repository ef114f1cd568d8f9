import { describe, expect, it } from 'vitest';
import { createProviderRegistry } from '../../server/providers/registry';
import type { HttpClient, ProviderAdapter } from '../../server/providers/types';

const http: HttpClient = { request: () => Promise.reject(new Error('no network in this test')) };
const base = { http, now: () => 0, generateId: () => 'id' };

describe('createProviderRegistry', () => {
  it('builds one adapter per provider name, by type', () => {
    const registry = createProviderRegistry({
      ...base,
      providers: [
        { name: 'openai', type: 'openai', baseUrl: 'https://api.openai.com/v1', apiKey: 'sk-x' },
        { name: 'deepseek', type: 'openai', baseUrl: 'https://api.deepseek.com/v1', apiKey: 'sk-y' },
        { name: 'anthropic', type: 'anthropic', baseUrl: 'https://api.anthropic.com', apiKey: 'a' },
        { name: 'gemini', type: 'gemini', baseUrl: 'https://generativelanguage.googleapis.com', apiKey: 'g' },
        { name: 'local', type: 'mock', baseUrl: '', apiKey: '', options: { latency_ms: 5 } },
      ],
    });
    expect(['openai', 'deepseek', 'anthropic', 'gemini', 'local'].map((name) => registry.get(name).type)).toEqual([
      'openai',
      'openai',
      'anthropic',
      'gemini',
      'mock',
    ]);
    expect(registry.get('openai')).not.toBe(registry.get('deepseek'));
    expect(registry.has('nope')).toBe(false);
    expect(() => registry.get('nope')).toThrow('No provider named "nope" is configured.');
  });

  it('takes replacement factories and refuses duplicate names and bad mock options', () => {
    const fake = { type: 'fake' } as ProviderAdapter;
    const registry = createProviderRegistry({
      ...base,
      providers: [{ name: 'x', type: 'openai', baseUrl: 'http://h/v1', apiKey: '' }],
      factories: { openai: () => fake },
    });
    expect(registry.get('x')).toBe(fake);
    const twice = { name: 'x', type: 'mock' as const, baseUrl: '', apiKey: '' };
    expect(() => createProviderRegistry({ ...base, providers: [twice, twice] })).toThrow('declared twice');
    expect(() => createProviderRegistry({ ...base, providers: [{ ...twice, options: { chunks: 0 } }] })).toThrow(/Invalid options/);
  });
});
