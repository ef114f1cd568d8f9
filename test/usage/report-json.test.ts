import { describe, expect, it } from 'vitest';
import { createUsageReporter } from '../../server/usage/usage-report';
import { dialectsUnderTest } from '../db/databases';
import { useMigratedStore } from '../db/store-fixtures';
import { REPORT_ACCOUNT, REPORT_NOW, seedReportFixture } from './report-json-fixture';

/**
 * The usage report's JSON, to the character, for a fixed data set on each database: the order
 * of the keys and of their days, which keys are listed, and every number as the route writes
 * it (spends rounded up and down, under 1e-6 USD with an exponent, beyond 2^53 nano-dollars).
 * How the report is read and built may change; this text may not.
 */
const PINNED = [
  '{"object":"usage.keys","start":"2026-05-01","end":"2026-05-31","timezone":"Asia/Shanghai","keys":[',
  '{"name":"zulu","hint":"sk-...0002","status":"ACTIVE","blocked":false,"created_at":"2026-01-15T08:30:00.123Z","total":{"spend_usd":11068046.44422573,"requests":1201,"prompt_tokens":1200,"completion_tokens":1200},"daily":[{"date":"2026-05-20","spend_usd":11068046.44422573,"requests":1200,"prompt_tokens":1200,"completion_tokens":1200},{"date":"2026-05-21","spend_usd":0,"requests":1,"prompt_tokens":0,"completion_tokens":0}]},',
  '{"name":"revoked used","hint":"sk-...0004","status":"REVOKED","blocked":false,"created_at":"2026-01-20T00:00:00.000Z","total":{"spend_usd":4.2e-8,"requests":1,"prompt_tokens":100,"completion_tokens":20},"daily":[{"date":"2026-05-10","spend_usd":4.2e-8,"requests":1,"prompt_tokens":100,"completion_tokens":20}]},',
  '{"name":"alpha","hint":"sk-...0001","status":"ACTIVE","blocked":false,"created_at":"2026-02-01T00:00:00.000Z","total":{"spend_usd":7.01e-7,"requests":3,"prompt_tokens":19,"completion_tokens":23},"daily":[{"date":"2026-05-01","spend_usd":7.01e-7,"requests":2,"prompt_tokens":14,"completion_tokens":18},{"date":"2026-05-31","spend_usd":0,"requests":1,"prompt_tokens":5,"completion_tokens":5}]},',
  '{"name":"beta","hint":"sk-...0000","status":"ACTIVE","blocked":false,"created_at":"2026-02-01T00:00:00.000Z","total":{"spend_usd":1.000123461,"requests":5,"prompt_tokens":6002410,"completion_tokens":704},"daily":[{"date":"2026-05-02","spend_usd":0.000123457,"requests":1,"prompt_tokens":10,"completion_tokens":0},{"date":"2026-05-15","spend_usd":1,"requests":2,"prompt_tokens":6000000,"completion_tokens":24},{"date":"2026-05-30","spend_usd":4e-9,"requests":2,"prompt_tokens":2400,"completion_tokens":680}]},',
  '{"name":"blocked","hint":"sk-...0006","status":"ACTIVE","blocked":true,"created_at":"2026-02-10T00:00:00.000Z","total":{"spend_usd":0.000987654,"requests":2,"prompt_tokens":8000,"completion_tokens":5000},"daily":[{"date":"2026-05-03","spend_usd":0.000987654,"requests":2,"prompt_tokens":8000,"completion_tokens":5000}]},',
  '{"name":"idle","hint":"sk-...0003","status":"ACTIVE","blocked":false,"created_at":"2026-03-01T00:00:00.000Z","total":{"spend_usd":0,"requests":0,"prompt_tokens":0,"completion_tokens":0},"daily":[]}',
  ']}',
].join('');

for (const { dialect, available, create } of await dialectsUnderTest()) {
  describe.skipIf(!available)(`usage report JSON (${dialect})`, () => {
    const fixture = useMigratedStore(create);

    it("writes the fixed account's 31-day report exactly as pinned", async () => {
      await seedReportFixture(fixture.store);
      const report = createUsageReporter({ store: fixture.store, now: () => REPORT_NOW });
      const body = await report(REPORT_ACCOUNT, { start: '2026-05-01', end: '2026-05-31' });
      expect(JSON.stringify(body)).toBe(PINNED);
    });
  });
}
