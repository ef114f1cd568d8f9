import { randomFillSync } from 'node:crypto';

/** Ids of one pool fill: the CSPRNG is asked once per this many. */
const IDS_PER_FILL = 256;

/**
 * The gateway's ids (request ids, completion ids some providers need): 128 random bits as 32
 * hex characters, the format of a dash-less UUID. Drawn from a buffer refilled by the CSPRNG
 * every 256 ids and hex-encoded in place; `randomUUID().replace(/-/g, '')` cost a regular
 * expression and two strings per id, on every request. `bytes`: random bytes an id (two hex
 * characters each).
 */
export function randomHexIds(bytes = 16): () => string {
  const pool = Buffer.allocUnsafe(IDS_PER_FILL * bytes);
  let offset = pool.length;
  return () => {
    if (offset === pool.length) {
      randomFillSync(pool);
      offset = 0;
    }
    const id = pool.toString('hex', offset, offset + bytes);
    offset += bytes;
    return id;
  };
}
