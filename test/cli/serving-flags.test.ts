import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SERVING_NODE_FLAGS } from '../../server/cli/serving-flags';

const read = (file: string) => readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');

describe('the serving process’s Node options', () => {
  it('are given where the gateway starts: the command’s shebang and npm start', () => {
    const shebang = read('bin/model-gateway.js').split('\n')[0];
    const start = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts.start;
    for (const flag of SERVING_NODE_FLAGS) {
      expect(shebang).toMatch(new RegExp(`^#!/usr/bin/env -S node( \\S+)* ${flag}( |$)`));
      expect(start).toMatch(new RegExp(`^node( \\S+)* ${flag}( \\S+)* bin/model-gateway\\.js serve$`));
    }
  });

  it('are accepted by this Node', () => {
    const result = spawnSync(process.execPath, [...SERVING_NODE_FLAGS, '-e', 'process.exit(0)'], { encoding: 'utf8' });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });
});
