import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../server/config/load-config';
import { problemsOf } from './config-error-of';

const FILE = 'gateway.yaml';

/** A small valid file; each test breaks one thing in it. */
const VALID = `providers:
  openai: { type: openai, base_url: https://api.openai.com/v1, api_key_env: OPENAI_API_KEY }
  mock: { type: mock }
models:
  - id: chat-a
    provider: openai
    capabilities: [chat, vision]
    context_window: 128000
    pricing: { input_per_million: 0.15, output_per_million: 0.6 }
    fallbacks: [chat-b]
  - id: chat-b
    provider: mock
    capabilities: [chat]
    context_window: 8000
    pricing: { input_per_million: 0, output_per_million: 0 }
  - id: embed-a
    provider: mock
    capabilities: [embeddings]
    dimensions: [256, 1536]
    context_window: 8191
    pricing: { input_per_million: 0.02, output_per_million: 0 }
`;

/** 1-based line of the first line containing `marker` (after `from`, when given). */
function lineOf(text: string, marker: string, from = 1): number {
  const lines = text.split('\n');
  for (let index = from - 1; index < lines.length; index += 1) {
    if (lines[index]?.includes(marker)) return index + 1;
  }
  throw new Error(`marker not found: ${marker}`);
}

function expectSingleProblem(text: string, path: string, line: number, message: RegExp): void {
  const problems = problemsOf(text);
  expect(problems).toHaveLength(1);
  expect(problems[0]).toMatchObject({ file: FILE, path, line });
  expect(problems[0]?.message).toMatch(message);
}

describe('configuration errors carry the file and line', () => {
  it('accepts the valid base file', () => {
    expect(parseConfigText(VALID, FILE, {}).models.map((model) => model.id)).toEqual(['chat-a', 'chat-b', 'embed-a']);
  });

  it('reports a value of the wrong type at its line', () => {
    const text = VALID.replace('context_window: 8000', 'context_window: lots');
    expectSingleProblem(text, 'models[1].context_window', lineOf(text, 'context_window: lots'), /expected number, got string/);
  });

  it('reports an unknown key at the key, so typos are caught', () => {
    const text = VALID.replace(
      '  mock: { type: mock }',
      '  mock: { type: mock }\n  other:\n    type: openai\n    base_ur: https://example.com/v1',
    );
    const problems = problemsOf(text);
    expect(problems).toContainEqual(
      expect.objectContaining({ path: 'providers.other.base_ur', line: lineOf(text, 'base_ur:'), column: 5, message: 'unknown key' }),
    );
  });

  it('reports a missing field at the line of the map that lacks it', () => {
    const text = VALID.replace('    context_window: 8000\n', '');
    expectSingleProblem(text, 'models[1].context_window', lineOf(text, 'id: chat-b'), /is required/);
  });

  it('reports a reference to an undeclared provider', () => {
    const text = VALID.replace('provider: mock\n    capabilities: [chat]', 'provider: anthropic\n    capabilities: [chat]');
    expectSingleProblem(text, 'models[1].provider', lineOf(text, 'provider: anthropic'), /unknown provider "anthropic"/);
  });

  it('reports an unknown fallback, a self reference and a kind mismatch', () => {
    const text = VALID.replace('fallbacks: [chat-b]', 'fallbacks: [chat-b, nope, chat-a, embed-a]');
    const line = lineOf(text, 'fallbacks:');
    const problems = problemsOf(text);
    expect(problems.map((problem) => [problem.path, problem.line])).toEqual([
      ['models[0].fallbacks[1]', line],
      ['models[0].fallbacks[2]', line],
      ['models[0].fallbacks[3]', line],
    ]);
    expect(problems.map((problem) => problem.message)).toEqual([
      'unknown model "nope"',
      'a model cannot fall back to itself',
      '"embed-a" is an embeddings model; a chat model can only fall back to chat models',
    ]);
  });

  it('reports a duplicate model id at the second declaration', () => {
    const text = VALID.replace('id: chat-b', 'id: chat-a').replace('fallbacks: [chat-b]', '');
    expectSingleProblem(text, 'models[1].id', lineOf(text, 'id: chat-a', lineOf(text, 'id: chat-a') + 1), /duplicate model id "chat-a"/);
  });

  it('refuses dimensions on a chat model', () => {
    const text = VALID.replace('capabilities: [chat]\n', 'capabilities: [chat]\n    dimensions: [512]\n');
    expectSingleProblem(text, 'models[1].dimensions', lineOf(text, 'dimensions: [512]'), /only embeddings models take dimensions/);
  });

  it('requires base_url except for the mock provider', () => {
    const text = VALID.replace('openai: { type: openai, base_url: https://api.openai.com/v1,', 'openai: { type: openai,');
    expectSingleProblem(text, 'providers.openai.base_url', lineOf(text, 'openai: { type: openai'), /is required for type openai/);
  });

  it('checks the options of the mock provider', () => {
    const text = VALID.replace('  mock: { type: mock }', '  mock:\n    type: mock\n    options: { latency: 5 }');
    expectSingleProblem(text, 'providers.mock.options.latency', lineOf(text, 'options: { latency'), /unknown key/);
  });

  it('reports YAML syntax errors with their line', () => {
    const text = VALID.replace('    context_window: 8000\n', '\tcontext_window: 8000\n');
    // The parser may add follow-on errors; the first one names the real cause.
    expect(problemsOf(text)[0]).toMatchObject({
      file: FILE,
      path: '(yaml)',
      line: lineOf(text, '\tcontext_window'),
      message: 'Tabs are not allowed as indentation',
    });
  });

  it('reports an unclosed flow sequence no earlier than where it opens', () => {
    const text = VALID.replace('capabilities: [chat]\n', 'capabilities: [chat\n');
    const problems = problemsOf(text);
    expect(problems[0]).toMatchObject({ file: FILE, path: '(yaml)' });
    expect(problems[0]?.line).toBeGreaterThanOrEqual(lineOf(text, 'capabilities: [chat\n'.trimEnd(), lineOf(text, 'id: chat-b')));
  });

  it('reports duplicate YAML keys as syntax errors', () => {
    const text = VALID.replace('    context_window: 8000\n', '    context_window: 8000\n    context_window: 9000\n');
    const problems = problemsOf(text);
    expect(problems).toEqual([expect.objectContaining({ path: '(yaml)', line: lineOf(text, 'context_window: 9000') })]);
  });

  it('refuses an empty file', () => {
    expect(problemsOf('# nothing\n')).toEqual([expect.objectContaining({ path: '(root)', message: 'the file is empty' })]);
  });

  it('lists every problem of a file at once, in file order, each on its own line', () => {
    const text = VALID.replace('capabilities: [chat, vision]', 'capabilities: [chat, telepathy]')
      .replace('context_window: 8000', 'context_window: -5')
      .replace('provider: mock\n    capabilities: [embeddings]', 'provider: ghost\n    capabilities: [embeddings]')
      .replace('fallbacks: [chat-b]', 'fallbacks: [chat-z]')
      .concat('extra_section: true\n');
    let message = '';
    try {
      parseConfigText(text, FILE, {});
    } catch (error) {
      message = error instanceof Error ? error.message : '';
    }
    const lines = message.split('\n').slice(1);
    expect(lines).toEqual([
      `${FILE}:${lineOf(text, 'telepathy')}:26: models[0].capabilities[1]: must be one of chat, code, vision, function_calling, json_mode, reasoning, embeddings; got "telepathy"`,
      `${FILE}:${lineOf(text, 'chat-z')}:17: models[0].fallbacks[0]: unknown model "chat-z"`,
      `${FILE}:${lineOf(text, 'context_window: -5')}:21: models[1].context_window: must be greater than 0`,
      `${FILE}:${lineOf(text, 'provider: ghost')}:15: models[2].provider: unknown provider "ghost" (declared: openai, mock)`,
      `${FILE}:${lineOf(text, 'extra_section')}:1: extra_section: unknown key`,
    ]);
    expect(message.split('\n')[0]).toBe('Invalid gateway configuration (5 problems):');
  });

  it('formats every problem as file:line:col: path: message', () => {
    const text = VALID.replace('context_window: 8000', 'context_window: 1.5');
    expect(() => parseConfigText(text, 'conf/gw.yaml', {})).toThrow(
      new RegExp(`^conf/gw\\.yaml:${lineOf(text, 'context_window: 1.5')}:21: models\\[1\\]\\.context_window: `, 'm'),
    );
  });
});
