import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SERVING_MALLOC_ENV, SERVING_NODE_FLAGS, withServingEnv } from '../../server/cli/serving-flags';

const read = (file: string) => readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');

describe('the serving process’s Node options', () => {
  it('are given where the gateway starts: the command’s shebang and npm start', () => {
    const shebang = read('bin/model-gateway.js').split('\n')[0];
    const start = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts.start;
    for (const flag of SERVING_NODE_FLAGS) {
      expect(shebang).toMatch(new RegExp(`^#!/usr/bin/env -S( \\S+=\\S+)* node( \\S+)* ${flag}( |$)`));
      expect(start).toMatch(new RegExp(`^(\\S+=\\S+ )*node( \\S+)* ${flag}( \\S+)* bin/model-gateway\\.js serve$`));
    }
  });

  it('start the process with the malloc settings: the shebang and npm start set them before node', () => {
    const shebang = read('bin/model-gateway.js').split('\n')[0] ?? '';
    const start = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts.start ?? '';
    for (const [name, value] of Object.entries(SERVING_MALLOC_ENV)) {
      expect(shebang.split(' node ')[0]?.split(' ')).toContain(`${name}=${value}`);
      expect(start.split(' node ')[0]?.split(' ')).toContain(`${name}=${value}`);
    }
  });

  it('leave a malloc setting the environment gives alone, and add the others', () => {
    const env = withServingEnv({ MALLOC_ARENA_MAX: '4', PATH: '/bin' });
    expect(env).toEqual({ ...SERVING_MALLOC_ENV, MALLOC_ARENA_MAX: '4', PATH: '/bin' });
  });

  it('are accepted by this Node', () => {
    const result = spawnSync(process.execPath, [...SERVING_NODE_FLAGS, '-e', 'process.exit(0)'], { encoding: 'utf8' });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });
});
