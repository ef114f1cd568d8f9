import type { GatewayDb, RequestLogWhere } from './gateway-db';
import type { Store } from './types';

/** The request log's reads and pruning (docs/request-log.md); its writes ride with the usage batches. */
export function requestLogThroughPrisma(db: GatewayDb): Pick<Store, 'listRequests' | 'getRequest' | 'pruneRequestLog'> {
  return {
    async listRequests(query) {
      const where: RequestLogWhere = {};
      if (query.accountId !== undefined) where.accountId = query.accountId;
      if (query.keyId !== undefined) where.keyId = query.keyId;
      if (query.model !== undefined) where.model = query.model;
      if (query.status !== undefined) where.status = query.status;
      if (query.errorCode !== undefined) where.errorCode = query.errorCode;
      if (query.from !== undefined || query.to !== undefined) {
        where.receivedAt = {};
        if (query.from !== undefined) where.receivedAt.gte = query.from;
        if (query.to !== undefined) where.receivedAt.lt = query.to;
      }
      const { before } = query;
      if (before) where.OR = [{ receivedAt: { lt: before.receivedAt } }, { receivedAt: before.receivedAt, id: { lt: before.id } }];
      return db.requestLog.findMany({ where, orderBy: [{ receivedAt: 'desc' }, { id: 'desc' }], take: query.limit });
    },

    async getRequest(id) {
      return db.requestLog.findUnique({ where: { id } });
    },

    async pruneRequestLog(before, bodiesBefore) {
      const records = await db.requestLog.deleteMany({ where: { receivedAt: { lt: before } } });
      const bodies = await db.requestLog.updateMany({
        where: { receivedAt: { lt: bodiesBefore }, OR: [{ requestBody: { not: null } }, { responseBody: { not: null } }] },
        data: { requestBody: null, responseBody: null },
      });
      return { records: records.count, bodies: bodies.count };
    },
  };
}
