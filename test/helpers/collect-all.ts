/** Every item of an async iterable (a stream's chunks, a renderer's events), in order. */
export async function collectAll<Item>(items: AsyncIterable<Item>): Promise<Item[]> {
  const result: Item[] = [];
  for await (const item of items) result.push(item);
  return result;
}
