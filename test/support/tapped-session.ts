/**
 * A RelaySession wrapper for tests: passes everything through to the real session and also lets
 * the test hand events straight to the subscribers, as a careless relay would (no signature or
 * filter checks, expired events delivered). It shows what the code under test checks itself.
 */
import type { NostrEvent, RelaySession } from '../../src/nostr/relay-session.js';

export function tappedSession(inner: RelaySession): { session: RelaySession; inject(event: NostrEvent): void } {
  const subscribers = new Set<(event: NostrEvent) => void>();
  return {
    inject(event) {
      for (const onEvent of [...subscribers]) onEvent(event);
    },
    session: {
      publish: (event) => inner.publish(event),
      subscribe(filters, onEvent) {
        const subscription = inner.subscribe(filters, onEvent);
        subscribers.add(onEvent);
        return {
          close() {
            subscribers.delete(onEvent);
            subscription.close();
          },
        };
      },
      close: () => inner.close(),
    },
  };
}
