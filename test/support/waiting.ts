/** Waiting in tests that watch other processes: a live stream read as text, a condition polled. */
import { expect } from 'vitest';

/** An SSE stream read as text as it comes. */
export async function openStream(url: string, key: string): Promise<{ text: () => string; close: () => void }> {
  const controller = new AbortController();
  const response = await fetch(url, { headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' }, signal: controller.signal });
  expect(response.status).toBe(200);
  let text = '';
  const reader = response.body!.getReader();
  void (async () => {
    const decoder = new TextDecoder();
    for (;;) {
      const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (done) return;
      text += decoder.decode(value, { stream: true });
    }
  })();
  return { text: () => text, close: () => controller.abort() };
}

/** Resolves once `condition` holds; throws after `timeoutMs`, with what `describe` says. */
export async function until(condition: () => boolean, timeoutMs: number, describe?: () => unknown): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > end) throw new Error(`condition not met within ${timeoutMs} ms${describe ? `: ${JSON.stringify(describe()).slice(0, 2_000)}` : ''}`);
    await sleep(50);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
