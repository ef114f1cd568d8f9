/**
 * The strict compiler options a TypeScript project consuming the gateway's API types is checked
 * with (exactOptionalPropertyTypes on, no ambient types, NodeNext), `overrides` over them.
 */
export function consumerCompilerOptions(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    strict: true,
    exactOptionalPropertyTypes: true,
    noEmit: true,
    target: 'ES2022',
    lib: ['ES2022', 'DOM'],
    types: [],
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    ...overrides,
  };
}
