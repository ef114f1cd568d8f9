import { describe, expect, it } from 'vitest';
import { decodeFloat32Base64, float32Base64, isFloat32Base64 } from '../../server/providers/embedding-base64';

const encoded = (values: number[]) => Buffer.from(new Float32Array(values).buffer).toString('base64');

describe('base64 embeddings', () => {
  it('encodes little-endian float32 and decodes it back', () => {
    expect(float32Base64([0.1, -2])).toBe(encoded([0.1, -2]));
    expect(decodeFloat32Base64(encoded([0.5, -2, 1e-8]))).toEqual([0.5, -2, Math.fround(1e-8)]);
  });

  it.each([
    ['one float (4 bytes, "==" padding)', encoded([0.5]), true],
    ['two floats (8 bytes, "=" padding)', encoded([0.5, 1]), true],
    ['three floats (12 bytes, no padding)', encoded([0.5, 1, 2]), true],
    ['1,536 floats', encoded(Array.from({ length: 1536 }, (_, index) => index / 7)), true],
    ['empty', '', false],
    ['3 bytes: not a whole float', 'AAAA', false],
    ['padding left off', encoded([0.5]).replace(/=+$/, ''), false],
    ['a character outside the alphabet', `${encoded([0.5, 1, 2]).slice(0, -1)}!`, false],
    ['the URL-safe alphabet', '-_-_AAAA', false],
    ['padding in the middle', `AA==${encoded([0.5, 1, 2])}`, false],
  ])('isFloat32Base64: %s', (_name, text, expected) => {
    expect(isFloat32Base64(text)).toBe(expected);
  });
});
