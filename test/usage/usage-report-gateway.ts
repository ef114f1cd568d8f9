import { afterAll, beforeAll } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway';
import { REPORT_TEST_CONFIG, TestClock } from './usage-http-helpers';

/**
 * Shared by usage-report.test.ts and usage-report-dates.test.ts: for the file, one gateway on
 * REPORT_TEST_CONFIG whose clock the tests set, closed after it. Read `gw` inside tests (it
 * exists from beforeAll on).
 */
export function useReportGateway() {
  const fixture = {
    clock: new TestClock('2026-01-01T00:00:00.000Z'),
    gw: undefined as unknown as TestGateway,
    /** A new account with one key and its usage query key. */
    async newAccount(keyName = 'main'): Promise<{ accountId: string; key: string; keyId: string; usageKey: string }> {
      const accountId = await fixture.gw.createAccount();
      const { id, key } = await fixture.gw.createKey(accountId, { name: keyName });
      return { accountId, key, keyId: id, usageKey: await fixture.gw.createUsageKey(accountId) };
    },
  };
  beforeAll(async () => {
    fixture.gw = await startTestGateway({ configYaml: REPORT_TEST_CONFIG, now: fixture.clock.now });
  });
  afterAll(() => fixture.gw?.close());
  return fixture;
}
