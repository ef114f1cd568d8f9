import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { consumerCompilerOptions } from '../helpers/consumer-compiler-options';
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
  writeFileSync(
    path.join(scratch, 'environment.d.ts'),
    'declare const process: { env: Record<string, string | undefined>; stdout: { write(text: string): void } };\n',
  );
  const configs = {
    // The package's own declarations are checked once (skipLibCheck off), under NodeNext.
    'tsconfig.nodenext.json': consumerCompilerOptions({ skipLibCheck: false }),
    'tsconfig.bundler.json': consumerCompilerOptions({ module: 'ESNext', moduleResolution: 'Bundler', skipLibCheck: true }),
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

/**
 * What an editor pays for the package's declarations: a consumer that calls every route (with
 * `skipLibCheck: false`, TypeScript's default) is type-checked alone and its cost printed
 * (docs/client-and-openapi.md, "Declarations"). The assertions hold with a wide margin: tsc's
 * count of type instantiations (deterministic; expanded zod inference gave millions) and its peak
 * memory, read by /usr/bin/time where the machine has it.
 */
it('a consumer calling every route type-checks with skipLibCheck off, with few instantiations and little memory', async () => {
  writeFileSync(path.join(scratch, 'every-route.ts'), EVERY_ROUTE);
  const compilerOptions = consumerCompilerOptions({ skipLibCheck: false });
  writeFileSync(path.join(scratch, 'tsconfig.every-route.json'), JSON.stringify({ compilerOptions, files: ['every-route.ts'] }));
  const timed = existsSync('/usr/bin/time');
  const command = timed
    ? ['/usr/bin/time', ['-v', 'node', tsc, '-p', 'tsconfig.every-route.json', '--extendedDiagnostics']]
    : ['node', [tsc, '-p', 'tsconfig.every-route.json', '--extendedDiagnostics']];
  const result = await run(command[0] as string, command[1] as string[], { cwd: scratch }).catch(
    (error: { stdout: string; stderr: string }) => ({ ...error, failed: true }),
  );
  const errors = result.stdout.split('\n').filter((line) => line.includes('error TS'));
  expect(errors).toEqual([]);
  expect('failed' in result).toBe(false);
  const figure = (pattern: RegExp, text: string) => Number(pattern.exec(text)?.[1] ?? Number.NaN);
  const instantiations = figure(/Instantiations:\s+(\d+)/, result.stdout);
  const checkSeconds = figure(/Check time:\s+([\d.]+)s/, result.stdout);
  const cpuSeconds = figure(/User time \(seconds\): ([\d.]+)/, result.stderr) + figure(/System time \(seconds\): ([\d.]+)/, result.stderr);
  const peakMegabytes = figure(/Maximum resident set size \(kbytes\): (\d+)/, result.stderr) / 1024;
  console.log(
    `every-route consumer, tsc --noEmit with skipLibCheck off: ${instantiations} instantiations, check ${checkSeconds} s, ` +
      (timed ? `CPU ${cpuSeconds.toFixed(1)} s, peak RSS ${peakMegabytes.toFixed(0)} MB` : 'no /usr/bin/time for CPU and memory'),
  );
  expect(instantiations).toBeLessThan(1_000_000);
  if (timed) expect(peakMegabytes).toBeLessThan(600);
}, 300_000);

const EVERY_ROUTE = `import { createGatewayClient, type ChatCompletion, type MessagesResponse, type ResponseObject } from '@model-gateway/client';
import { contract, type ApiKey, type DetailedUsageReport, type UsageReport } from '@model-gateway/client/contract';

const gateway = createGatewayClient({ baseUrl: 'http://localhost:8080', apiKey: 'sk-test' });
const ids = { accountId: 'acct_1', keyId: 'key_1' };

export async function everyRoute(): Promise<unknown[]> {
  const chat = await gateway.chat.create({ body: { model: 'm', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 8 } });
  const completion: ChatCompletion | null = chat.status === 200 ? chat.body : null;
  const embeddings = await gateway.embeddings.create({ body: { model: 'e', input: ['a', 'b'] } });
  const vectors = embeddings.status === 200 ? embeddings.body.data.map((item) => item.embedding) : [];
  const responses = await gateway.responses.create({ body: { model: 'm', input: 'Hi' } });
  const response: ResponseObject | null = responses.status === 200 ? responses.body : null;
  const messages = await gateway.messages.create({
    query: { beta: 'true' },
    headers: {},
    body: { model: 'm', max_tokens: 16, messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }] },
  });
  const message: MessagesResponse | null = messages.status === 200 ? messages.body : null;
  const counted = await gateway.messages.countTokens({ query: {}, headers: {}, body: { model: 'm', messages: [{ role: 'user', content: 'Hi' }] } });
  const tokens: number = counted.status === 200 ? counted.body.input_tokens : 0;
  const models = await gateway.models.list();
  const usage = await gateway.usage.keys({ query: { start: '2026-01-01', end: '2026-01-31' } });
  const report: UsageReport | null = usage.status === 200 ? usage.body : null;
  const accounts = await gateway.admin.listAccounts();
  const account = await gateway.admin.createAccount({ body: { name: 'Acme' } });
  const updated = await gateway.admin.updateAccount({ params: ids, body: { rpm: 100, tpm: null } });
  const fetched = await gateway.admin.getAccount({ params: ids });
  const accountBudget = await gateway.admin.getAccountBudget({ params: ids });
  const keys = await gateway.admin.listKeys({ params: ids });
  const listed: ApiKey[] = keys.status === 200 ? keys.body.data : [];
  const created = await gateway.admin.createKey({ params: ids, body: { name: 'ci', rpm: 60 } });
  const key = await gateway.admin.getKey({ params: ids });
  const keyBudget = await gateway.admin.getKeyBudget({ params: ids });
  const changed = await gateway.admin.updateKey({ params: ids, body: { name: 'renamed' } });
  const revoked = await gateway.admin.revokeKey({ params: ids });
  const blocked = await gateway.admin.blockKey({ params: ids });
  const unblocked = await gateway.admin.unblockKey({ params: ids });
  const rotated = await gateway.admin.rotateKey({ params: ids, body: { grace_seconds: 60 } });
  const audit = await gateway.admin.listAudit({ query: { limit: 10 } });
  const usageKey = await gateway.admin.getUsageKey({ params: ids });
  const newUsageKey = await gateway.admin.createUsageKey({ params: ids });
  const link = await gateway.admin.createLoginLink({ params: ids });
  const accountUsage = await gateway.admin.getUsage({ params: ids, query: {} });
  const detailed: DetailedUsageReport | null = accountUsage.status === 200 ? accountUsage.body : null;
  const signedIn = await gateway.session.signIn({ body: { token: 'lt-1' } });
  const session = await gateway.session.getSession();
  const signedOut = await gateway.session.signOut();
  const health = await gateway.health.health();
  const ready = await gateway.health.ready();
  const openapi = await gateway.health.openapi();
  let streamed = '';
  for await (const chunk of gateway.streamChatCompletion({ model: 'm', messages: [{ role: 'user', content: 'Hi' }] })) {
    streamed += chunk.choices[0]?.delta.content ?? '';
  }
  for await (const event of gateway.stream(contract.messages.create, { model: 'm', max_tokens: 8, messages: [{ role: 'user', content: 'Hi' }] })) {
    if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') streamed += event.delta.text;
  }
  for await (const event of gateway.stream(contract.responses.create, { model: 'm', input: 'Hi' })) {
    if (event.type === 'response.output_text.delta') streamed += event.delta;
  }
  return [completion, vectors, response, message, tokens, models.status, report, accounts.status, account.status, updated.status,
    fetched.status, accountBudget.status, listed, created.status, key.status, keyBudget.status, changed.status, revoked.status,
    blocked.status, unblocked.status, rotated.status, audit.status, usageKey.status, newUsageKey.status, link.status, detailed,
    signedIn.status, session.status, signedOut.status, health.status, ready.status, openapi.status, streamed];
}

// The types are the contract's, not \`any\`: each of these is an error.
// @ts-expect-error rpm is a number
void gateway.admin.createKey({ params: ids, body: { name: 'ci', rpm: '60' } });
// @ts-expect-error a chat message needs a role
void gateway.chat.create({ body: { model: 'm', messages: [{ content: 'Hi' }] } });
// @ts-expect-error max_tokens is required by the Messages API
void gateway.messages.create({ query: {}, headers: {}, body: { model: 'm', messages: [] } });
export async function wrongBodyType(): Promise<void> {
  const models = await gateway.models.list();
  // @ts-expect-error a model id is a string
  if (models.status === 200) { const id: number = models.body.data[0]!.id; void id; }
}
`;

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
