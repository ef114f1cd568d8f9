import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway';

/**
 * What a TypeScript consumer gets: `npm pack` of packages/client, installed from the tarball
 * in a fresh project (its two dependencies come from the registry), imported by plain Node
 * and type-checked by tsc under NodeNext and Bundler with exactOptionalPropertyTypes.
 */
const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));
const packageDirectory = path.join(root, 'packages', 'client');
const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');

let gw: TestGateway;
let scratch: string;
let tarball: string;
beforeAll(async () => {
  gw = await startTestGateway();
  scratch = mkdtempSync(path.join(tmpdir(), 'gateway-client-'));
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', scratch], { cwd: packageDirectory, maxBuffer: 1 << 24 });
  const packed = JSON.parse(stdout) as { filename: string }[];
  tarball = path.join(scratch, packed[0]?.filename ?? '');
  writeFileSync(path.join(scratch, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  await run('npm', ['install', '--no-audit', '--no-fund', tarball], { cwd: scratch, maxBuffer: 1 << 24 });
}, 240_000);
afterAll(async () => {
  await gw?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

it('the tarball holds built JavaScript and declarations, no TypeScript sources, no server code, no install scripts', () => {
  const installed = path.join(scratch, 'node_modules', '@model-gateway', 'client');
  const manifest = JSON.parse(readFileSync(path.join(installed, 'package.json'), 'utf8')) as {
    scripts?: Record<string, string>;
    dependencies: Record<string, string>;
  };
  expect(Object.keys(manifest.dependencies).sort()).toEqual(['@ts-rest/core', 'zod']);
  expect(Object.keys(manifest.scripts ?? {}).filter((name) => /install/.test(name))).toEqual([]);
  const files = readdirSync(path.join(installed, 'dist'));
  expect(files).toContain('client.js');
  expect(files).toContain('client.d.ts');
  expect(files.filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))).toEqual([]);
  const installedPackages = readdirSync(path.join(scratch, 'node_modules')).filter((name) => !name.startsWith('.'));
  expect(installedPackages.sort()).toEqual(['@model-gateway', '@ts-rest', 'zod']);
});

it('plain Node imports it and calls the gateway, typed calls and a streamed chat', async () => {
  const apiKey = (await gw.createKey(await gw.createAccount())).key;
  writeFileSync(
    path.join(scratch, 'consumer.mjs'),
    `import { createGatewayClient, ChatCompletionChunkSchema } from '@model-gateway/client';
import { contract } from '@model-gateway/client/contract';
const gateway = createGatewayClient({ baseUrl: process.argv[2], apiKey: process.argv[3] });
const models = await gateway.models.list();
let text = '';
for await (const chunk of gateway.streamChatCompletion({ model: 'mock-chat', messages: [{ role: 'user', content: 'Hi' }] })) {
  ChatCompletionChunkSchema.parse(chunk);
  text += chunk.choices[0]?.delta.content ?? '';
}
console.log(JSON.stringify({ status: models.status, first: models.body.data[0].id, path: contract.chat.create.path, streamed: text.length > 0 }));
`,
  );
  const { stdout } = await run('node', ['consumer.mjs', gw.baseUrl, apiKey], { cwd: scratch });
  expect(JSON.parse(stdout)).toEqual({ status: 200, first: 'mock-chat', path: '/v1/chat/completions', streamed: true });
});

it('tsc type-checks a consumer under NodeNext and under Bundler, with exactOptionalPropertyTypes', async () => {
  writeFileSync(
    path.join(scratch, 'consumer.ts'),
    `import { createGatewayClient, GatewayStreamError, type ChatCompletionChunk, type ModelList } from '@model-gateway/client';
import { contract } from '@model-gateway/client/contract';

declare const environmentKey: string | undefined;
const gateway = createGatewayClient({ baseUrl: 'http://localhost:8080', apiKey: environmentKey });

export async function demo(): Promise<string> {
  const models = await gateway.models.list();
  const list: ModelList | null = models.status === 200 ? models.body : null;
  const created = await gateway.admin.createKey({ params: { accountId: 'acc' }, body: { name: 'ci', rpm: 60 } });
  const key: string = created.status === 201 ? created.body.key : '';
  let text = '';
  try {
    for await (const chunk of gateway.streamChatCompletion({ model: 'm', messages: [{ role: 'user', content: 'Hi' }] })) {
      const typed: ChatCompletionChunk = chunk;
      text += typed.choices[0]?.delta.content ?? '';
    }
    for await (const chunk of gateway.stream(contract.chat.create, { model: 'm', messages: [{ role: 'system', content: 'x' }] })) {
      text += chunk.id;
    }
  } catch (error) {
    if (error instanceof GatewayStreamError) text += error.status;
  }
  return \`\${list?.data.length ?? 0}\${key}\${text}\`;
}

// @ts-expect-error rpm is a number
void gateway.admin.createKey({ params: { accountId: 'acc' }, body: { name: 'ci', rpm: '60' } });
`,
  );
  // The README's example, as written there.
  writeFileSync(path.join(scratch, 'readme-example.ts'), README_EXAMPLE);
  const base = { strict: true, exactOptionalPropertyTypes: true, noEmit: true, target: 'ES2022', lib: ['ES2022', 'DOM'], types: [] };
  writeFileSync(
    path.join(scratch, 'environment.d.ts'),
    'declare const process: { env: Record<string, string | undefined>; stdout: { write(text: string): void } };\n',
  );
  const configs = {
    // The package's own declarations are checked once (skipLibCheck off), under NodeNext.
    'tsconfig.nodenext.json': { ...base, module: 'NodeNext', moduleResolution: 'NodeNext', skipLibCheck: false },
    'tsconfig.bundler.json': { ...base, module: 'ESNext', moduleResolution: 'Bundler', skipLibCheck: true },
  };
  for (const [file, compilerOptions] of Object.entries(configs)) {
    writeFileSync(
      path.join(scratch, file),
      JSON.stringify({ compilerOptions, files: ['environment.d.ts', 'consumer.ts', 'readme-example.ts'] }),
    );
    const result = await run('node', [tsc, '-p', file], { cwd: scratch }).catch((error: { stdout: string }) => ({
      stdout: error.stdout,
      failed: true,
    }));
    expect(result.stdout, file).toBe('');
  }
  // Two whole tsc runs: tens of seconds alone, minutes on a slow machine running the other test pass beside it.
}, 300_000);

const README_EXAMPLE = `import { createGatewayClient } from '@model-gateway/client';

const gateway = createGatewayClient({ baseUrl: 'http://localhost:8080', apiKey: process.env.GATEWAY_API_KEY });

const reply = await gateway.chat.create({ body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello' }] } });
if (reply.status === 200) console.log(reply.body.choices[0]?.message.content);
else console.error('The gateway answered', reply.status, reply.body);

for await (const chunk of gateway.streamChatCompletion({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello' }] })) {
  process.stdout.write(chunk.choices[0]?.delta.content ?? '');
}

const admin = createGatewayClient({ baseUrl: 'http://localhost:8080', apiKey: process.env.GATEWAY_ADMIN_TOKEN });
const account = await admin.admin.createAccount({ body: { name: 'Acme' } });
if (account.status === 201) {
  const key = await admin.admin.createKey({ params: { accountId: account.body.id }, body: { name: 'prod', rpm: 100 } });
  if (key.status === 201) console.log(key.body.key);
}
`;
