import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { encodeJournalLine, JOURNAL_HEADER } from '../../server/usage/journal-line';
import { MemoryUsageSink } from '../../server/usage/types';
import { UsageJournal } from '../../server/usage/usage-journal';
import { newUsageEventId } from '../../server/usage/usage-event-id';
import { parsePrometheusText, sampleValue } from '../helpers/prometheus-text';
import { startTestGateway, testDialect, type TestGateway } from '../helpers/test-gateway';

/**
 * docs/usage-durability.md at the HTTP level: a reply (a JSON body, a stream's [DONE]) goes
 * out only once its usage event is in the journal, the stored event carries the journaled id,
 * and when the journal cannot be written (a full disk) /readyz fails and model calls answer
 * 503 usage_unavailable instead of being served unbilled.
 */
const CHAT = { model: 'mock-chat', messages: [{ role: 'user', content: 'hello there' }] };

describe('usage durability over HTTP', () => {
  let directory: string;
  let test: TestGateway | null = null;
  afterEach(async () => {
    await test?.close();
    test = null;
    rmSync(directory, { recursive: true, force: true });
  });

  // The slot a single instance claims under its journal directory (docs/usage-durability.md).
  const slot = () => join(directory, 'worker-1');
  const journalText = () =>
    readdirSync(slot())
      .filter((name) => name.endsWith('.jsonl'))
      .map((name) => readFileSync(join(slot(), name), 'utf8'))
      .join('');

  it('a reply and a stream end only after their usage is journaled; the store gets the journaled id', async () => {
    directory = mkdtempSync(join(tmpdir(), 'usage-durability-'));
    test = await startTestGateway({ usageJournal: { base: directory, fixed: true } });
    const account = await test.createAccount();
    const { key } = await test.createKey(account);

    const reply = await test.http
      .post('/v1/chat/completions')
      .set('authorization', `Bearer ${key}`)
      .set('x-request-id', 'journaled-1')
      .send(CHAT);
    expect(reply.status).toBe(200);
    // Read right after the reply arrived: no flush since.
    const line = journalText()
      .split('\n')
      .find((text) => text.includes('"t":"event"') && text.includes('journaled-1'));
    expect(line).toBeDefined();
    const eventId = (JSON.parse(line as string) as { id: string }).id;

    const stream = await test.http
      .post('/v1/chat/completions')
      .set('authorization', `Bearer ${key}`)
      .set('x-request-id', 'journaled-2')
      .send({ ...CHAT, stream: true });
    expect(stream.text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    expect(journalText()).toMatch(/"t":"event","id":"[^"]+","b":\["costFemtoUsd"\],"e":\{"requestId":"journaled-2"/);

    await test.gateway.recorder?.flush();
    expect(await test.store.countUsageEvents({ accountId: account })).toBe(2);
    // The journaled id is the stored one: a replay after a crash would be skipped as a duplicate.
    if (testDialect() === 'sqlite') {
      const db = new Database(test.databaseUrl.slice('file:'.length), { readonly: true });
      const row = db.prepare('SELECT event_id AS id FROM usage_events WHERE request_id = ?').get('journaled-1') as { id: string };
      db.close();
      expect(row.id).toBe(eventId);
    }
    // Both stored: the journal trims its segments.
    await new Promise((resolve) => setImmediate(resolve));
    expect(journalText()).not.toContain('journaled-1');
    const metrics = parsePrometheusText((await test.http.get('/metrics')).text);
    expect(sampleValue(metrics, 'gateway_usage_journal_pending_events')).toBe(0);
    expect(sampleValue(metrics, 'gateway_usage_journal_bytes')).toBeGreaterThan(0);
    expect(sampleValue(metrics, 'gateway_usage_journal_replayed_events')).toBe(0);
    expect(sampleValue(metrics, 'gateway_usage_journal_torn_entries')).toBe(0);
  });

  it('a full disk: the waiting reply and new calls get 503 usage_unavailable, /readyz fails, other routes still work', async () => {
    directory = mkdtempSync(join(tmpdir(), 'usage-durability-'));
    let full = false;
    const sink = new MemoryUsageSink();
    const journal = new UsageJournal({
      directory,
      sink,
      fsyncIntervalMs: 100,
      eventId: () => newUsageEventId(Date.now()),
      logger: pino({ level: 'silent' }),
      writeSync: (fd, data) => {
        if (full) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
        return writeSync(fd, data);
      },
    });
    test = await startTestGateway({ usageSink: sink, usageDurability: journal });
    const account = await test.createAccount();
    const { key } = await test.createKey(account);
    expect((await test.http.get('/readyz')).status).toBe(200);

    full = true;
    const first = await test.http.post('/v1/chat/completions').set('authorization', `Bearer ${key}`).send(CHAT);
    expect(first.status).toBe(503);
    expect(first.body.error).toMatchObject({ type: 'server_error', code: 'usage_unavailable' });
    const ready = await test.http.get('/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body.checks.usage_durability).toBe('down');
    const next = await test.http
      .post('/v1/chat/completions')
      .set('authorization', `Bearer ${key}`)
      .send({ ...CHAT, stream: true });
    expect(next.status).toBe(503);
    expect(next.body.error.code).toBe('usage_unavailable');
    expect((await test.http.get('/v1/models').set('authorization', `Bearer ${key}`)).status).toBe(200);

    full = false;
    await new Promise((resolve) => setTimeout(resolve, 1_300));
    expect((await test.http.get('/readyz')).status).toBe(200);
    expect((await test.http.post('/v1/chat/completions').set('authorization', `Bearer ${key}`).send(CHAT)).status).toBe(200);
    journal.close();
  });

  it('at start, before serving, replays what a killed process left: its events, its calls in flight as 499 once, a torn tail dropped', async () => {
    directory = mkdtempSync(join(tmpdir(), 'usage-durability-'));
    // The gateway that owns the database (it drops it when closed): no journal of its own.
    const first = await startTestGateway();
    const account = await first.createAccount();
    const { id: keyId } = await first.createKey(account);
    const base = {
      accountId: account,
      keyId,
      model: 'mock-chat',
      provider: 'mock',
      receivedAt: Date.now(),
      promptTokens: 5,
      cachedTokens: 0,
      cacheWriteTokens: 0,
      cacheWrite1hTokens: 0,
      reasoningTokens: 0,
      costFemtoUsd: 1_000n,
      estimated: true,
      stream: true,
      latencyMs: 1,
    };
    // What a process killed mid-traffic leaves: an event not yet stored, a stream in flight with a checkpoint, a torn line.
    mkdirSync(slot());
    writeFileSync(
      join(slot(), 'segment-000000000007.jsonl'),
      JOURNAL_HEADER +
        encodeJournalLine('open', 'e-1', { ...base, requestId: 'r-1', completionTokens: 0, status: 499, errorCode: 'interrupted' }) +
        encodeJournalLine('event', 'e-1', { ...base, requestId: 'r-1', completionTokens: 9, status: 200, errorCode: null }) +
        encodeJournalLine('open', 'e-2', { ...base, requestId: 'r-2', completionTokens: 0, status: 499, errorCode: 'interrupted' }) +
        encodeJournalLine('progress', 'e-2', { ...base, requestId: 'r-2', completionTokens: 4, status: 499, errorCode: 'interrupted' }) +
        '{"v":1,"t":"event","id":"e-2","b":["costF',
    );
    test = await startTestGateway({ usageJournal: { base: directory, fixed: true }, databaseUrl: first.databaseUrl });
    expect(await test.store.countUsageEvents({ accountId: account })).toBe(2);
    const metrics = parsePrometheusText((await test.http.get('/metrics')).text);
    expect(sampleValue(metrics, 'gateway_usage_journal_replayed_events')).toBe(2);
    expect(sampleValue(metrics, 'gateway_usage_journal_torn_entries')).toBe(1);
    expect(readdirSync(slot()).some((name) => name === 'segment-000000000007.jsonl')).toBe(false);
    if (testDialect() === 'sqlite') {
      const db = new Database(test.databaseUrl.slice('file:'.length), { readonly: true });
      const rows = db
        .prepare('SELECT event_id AS id, status, error_code AS code, completion_tokens AS tokens FROM usage_events ORDER BY event_id')
        .all();
      db.close();
      expect(rows).toEqual([
        { id: 'e-1', status: 200, code: null, tokens: 9 },
        { id: 'e-2', status: 499, code: 'interrupted', tokens: 4 },
      ]);
    }
    await test.close();
    test = null;
    await first.close();
  });
});
