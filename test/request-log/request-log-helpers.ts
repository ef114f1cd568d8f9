import { expect } from 'vitest';
import type { RequestDetail, RequestRecord } from '../../contract';
import type { TestGateway } from '../helpers/test-gateway';

/**
 * The request log's records matching `filter`, read through GET /v1/admin/requests as the
 * operator, once at least `count` are there: a record is queued when its response closes and
 * written with the next usage batch, which `flush` writes now.
 */
export async function recordsOf(gw: TestGateway, filter: Record<string, string>, count = 1): Promise<RequestRecord[]> {
  for (let round = 0; round < 200; round += 1) {
    await gw.gateway.recorder?.flush();
    const response = await gw.http.get('/v1/admin/requests').query(filter).set(gw.admin());
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const data = (response.body as { data: RequestRecord[] }).data;
    if (data.length >= count) return data;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`fewer than ${count} records for ${JSON.stringify(filter)}`);
}

/** The one record of `filter`. */
export async function recordOf(gw: TestGateway, filter: Record<string, string>): Promise<RequestRecord> {
  const records = await recordsOf(gw, filter);
  expect(records).toHaveLength(1);
  return records[0] as RequestRecord;
}

/** GET /v1/admin/requests/{id} as the operator. */
export async function detailOf(gw: TestGateway, id: string): Promise<RequestDetail> {
  const response = await gw.http.get(`/v1/admin/requests/${id}`).set(gw.admin());
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body as RequestDetail;
}
