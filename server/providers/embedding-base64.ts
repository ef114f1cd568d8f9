/**
 * OpenAI's base64 embeddings (`encoding_format: "base64"`): the vector as little-endian
 * float32 values, base64-encoded. The official SDKs ask for it by default and decode it
 * themselves: it is the common case, and ~4 times smaller than the float list in JSON.
 */
export function float32Base64(vector: readonly number[]): string {
  const buffer = Buffer.allocUnsafe(vector.length * 4);
  for (let index = 0; index < vector.length; index++) buffer.writeFloatLE(vector[index] ?? 0, index * 4);
  return buffer.toString('base64');
}

/** The floats of a base64 vector (bytes past the last whole float are ignored). */
export function decodeFloat32Base64(text: string): number[] {
  const bytes = Buffer.from(text, 'base64');
  const values: number[] = [];
  for (let offset = 0; offset + 4 <= bytes.length; offset += 4) values.push(bytes.readFloatLE(offset));
  return values;
}

const CANONICAL_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Whether `text` is padded standard base64 of a whole number of float32 values (non-empty). */
export function isFloat32Base64(text: string): boolean {
  if (text.length === 0 || text.length % 4 !== 0) return false;
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  return ((text.length / 4) * 3 - padding) % 4 === 0 && CANONICAL_BASE64.test(text);
}
