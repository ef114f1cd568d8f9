import { z } from 'zod';

/**
 * The configuration file is written in snake_case (docs/configuration.md) and read by the code
 * in camelCase. `configObject` declares one object of the file once: strict, so that a typo is
 * an error at start, with its own keys (never record keys such as provider names) camel-cased
 * on the way out, and the output type follows from the shape.
 */

type CamelCase<Key extends string> = Key extends `${infer Head}_${infer Tail}` ? `${Head}${Capitalize<CamelCase<Tail>>}` : Key;

export type CamelCaseKeys<Value> = { [Key in keyof Value as Key extends string ? CamelCase<Key> : Key]: Value[Key] };

export function camelCase(key: string): string {
  return key.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());
}

function camelCaseKeys<Value extends object>(value: Value): CamelCaseKeys<Value> {
  // The mapped type above describes exactly what this loop builds; TypeScript cannot follow it.
  return Object.fromEntries(Object.entries(value).map(([key, entry]) => [camelCase(key), entry])) as CamelCaseKeys<Value>;
}

type FileObject<Shape extends z.ZodRawShape> = z.output<z.ZodObject<Shape, 'strict'>>;

/** A strict object of the file; `check` sees it with the file's own (snake_case) keys. */
export function configObject<Shape extends z.ZodRawShape>(
  shape: Shape,
  check: (value: FileObject<Shape>, context: z.RefinementCtx) => void = () => undefined,
) {
  return z
    .object(shape)
    .strict()
    .superRefine(check)
    .transform((value) => camelCaseKeys(value));
}
