/**
 * `items.map(fn)` for an async `fn`, one item after the other: each call starts when the previous
 * one has finished, so writes on one connection happen in the order given and a refusal stops the
 * rest (as the synchronous loop it replaces did). `Promise.all(items.map(fn))` would start them all
 * at once.
 */
export async function mapInOrder<T, R>(items: readonly T[], fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (const [index, item] of items.entries()) results.push(await fn(item, index));
  return results;
}
