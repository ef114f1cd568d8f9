import { randomFillSync } from 'node:crypto';

/** Ids of one pool fill: the CSPRNG is asked once per this many. */
const IDS_PER_FILL = 256;
const ID_BYTES = 16;

/**
 * The gateway's ids (request ids, completion ids some providers need): 128 random bits as 32
 * hex characters, the format of a dash-less UUID. Drawn from a buffer refilled by the CSPRNG
 * every 256 ids and hex-encoded in place; `randomUUID().replace(/-/g, '')` cost a regular
 * expression and two strings per id, on every request.
 */
export function randomHexIds(): () => string {
  const pool = Buffer.allocUnsafe(IDS_PER_FILL * ID_BYTES);
  let offset = pool.length;
  return () => {
    if (offset === pool.length) {
      randomFillSync(pool);
      offset = 0;
    }
    const id = pool.toString('hex', offset, offset + ID_BYTES);
    offset += ID_BYTES;
    return id;
  };
}
