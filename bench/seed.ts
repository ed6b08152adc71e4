/**
 * Creates payment requests through a server's API, for GETs to read back: a server in memory
 * starts empty. Used alike on our server and the floor, so both answer GETs over maps of one size.
 */

/** POSTs `body` `count` times, `concurrency` at a time; returns the created ids. */
export async function seedThroughApi(
  url: string,
  authorization: string,
  body: string,
  count: number,
  concurrency: number,
): Promise<string[]> {
  const ids: string[] = [];
  let started = 0;
  const worker = async () => {
    while (started < count) {
      started += 1;
      ids.push(await createOne(url, authorization, body));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return ids;
}

async function createOne(url: string, authorization: string, body: string): Promise<string> {
  const response = await fetch(`${url}/api/v1/payment-requests`, {
    method: 'POST',
    headers: { authorization, 'content-type': 'application/json' },
    body,
  });
  const text = await response.text();
  if (response.status !== 201) throw new Error(`seeding ${url}: POST answered ${response.status}: ${text.slice(0, 300)}`);
  return (JSON.parse(text) as { id: string }).id;
}
