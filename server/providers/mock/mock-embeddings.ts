import { createHash } from 'node:crypto';

const DEFAULT_DIMENSIONS = 1536;

/** The vector size: the request's `dimensions`, else the largest the model allows, else 1536. */
export function mockDimensions(requested: number | undefined, allowed: number[] | undefined): number {
  if (requested !== undefined) return requested;
  return allowed && allowed.length > 0 ? Math.max(...allowed) : DEFAULT_DIMENSIONS;
}

/**
 * A unit-length vector that depends only on the text and the size: SHA-256 of the text seeds
 * a small PRNG (sfc32, https://pracrand.sourceforge.net/RNG_engines.txt), so equal texts embed
 * equally, different texts almost orthogonally, with no network and little CPU.
 */
export function mockEmbedding(text: string, dimensions: number): number[] {
  const seed = createHash('sha256').update(text).digest();
  let a = seed.readUInt32LE(0);
  let b = seed.readUInt32LE(4);
  let c = seed.readUInt32LE(8);
  let d = seed.readUInt32LE(12);
  const next = (): number => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  for (let warmUp = 0; warmUp < 12; warmUp++) next();
  const vector = new Array<number>(dimensions);
  let squares = 0;
  for (let index = 0; index < dimensions; index++) {
    const value = next() * 2 - 1;
    vector[index] = value;
    squares += value * value;
  }
  const norm = Math.sqrt(squares) || 1;
  for (let index = 0; index < dimensions; index++) vector[index] = (vector[index] ?? 0) / norm;
  return vector;
}
