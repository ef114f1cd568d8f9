import { initServer } from '@ts-rest/express';
import { contract } from '../../contract';
import type { Config } from '../config/load-config';
import { rateLimited } from '../errors/gateway-error';
import type { createKeyLimiter } from '../rate-limit/key-limiter';
import type { UsageReporter } from '../usage/usage-report';

const s = initServer();

export interface UsageRouterDependencies {
  limiter: ReturnType<typeof createKeyLimiter>;
  limits: Config['limits'];
  usageReport: UsageReporter;
}

/** GET /v1/usage/keys (docs/usage-report.md): the caller's account only. */
export function usageRouter(dependencies: UsageRouterDependencies) {
  return s.router(contract.usage, {
    keys: async ({ query, req, res }) => {
      const principal = res.locals.context.principal;
      if (principal?.kind !== 'usage-key') throw new Error('usage route reached without a usage key');
      // docs/rate-limits.md: 30/min per usage query key and 120/min per client IP.
      const check = await dependencies.limiter.checkUsage(principal.key.id, req.ip ?? 'unknown', {
        perKey: dependencies.limits.usageKeyRpm,
        perIp: dependencies.limits.usageIpRpm,
      });
      if (!check.allowed) {
        res.locals.context.rateLimitExceeded = check.which === 'ip' ? 'usage_ip' : 'usage_key';
        const which = check.which === 'ip' ? 'per client IP' : 'per usage query key';
        throw rateLimited(`Rate limit of the usage report exceeded (${which}); retry after the time in retry-after.`, check.headers);
      }
      for (const [name, value] of Object.entries(check.headers)) res.setHeader(name, value);
      return { status: 200, body: await dependencies.usageReport(principal.key.accountId, query) };
    },
  });
}
