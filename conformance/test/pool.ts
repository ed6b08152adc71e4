/** Runs of the classifier side by side: a bounded pool. */

/** Maps `items` through `task`, `limit` at a time, keeping the order. */
export async function pool<T, R>(items: T[], limit: number, task: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      for (let index = next++; index < items.length; index = next++) results[index] = await task(items[index]!);
    }),
  );
  return results;
}
