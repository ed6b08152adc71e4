/**
 * The relay's limits, in one place: the WebSocket transport, the message check, the event store
 * and the NIP-11 document all read them from here, so what the relay announces is what it does.
 *
 * Together they bound the memory a hostile client can make the relay hold (see `RELAY_MEMORY`
 * in the comment below): every buffer is capped per connection and connections are capped.
 */
export const RELAY_LIMITS = {
  /** Largest incoming message (a WebSocket message's payload), bytes: larger ones close the connection (1009). */
  maxMessageBytes: 64 * 1024,
  /** Open WebSocket connections at once; more are refused with HTTP 503 before upgrading. */
  maxConnections: 200,
  /** Open WebSocket connections from one remote address; more are refused with HTTP 503. */
  maxConnectionsPerAddress: 20,
  /** Open subscriptions per connection; a REQ with a new id beyond them gets CLOSED. */
  maxSubscriptions: 20,
  /** Filters in one REQ. */
  maxFilters: 10,
  /** Bytes of one REQ's filters as JSON: what a subscription holds while open. */
  maxFilterBytes: 8 * 1024,
  /** Largest `limit` honoured (and the most stored events one filter returns). */
  maxLimit: 500,
  /** Tags in one event. */
  maxEventTags: 100,
  /** Characters of a subscription id (NIP-01 says 64). */
  maxSubscriptionIdLength: 64,
  /** Messages per connection per second; one more gets a NOTICE and the connection closes (1008). */
  maxMessagesPerSecond: 100,
  /** Bytes waiting to be sent to a connection that does not read them; beyond, it is closed (1008). */
  maxBufferedBytes: 128 * 1024,
  /** Stored (kind 13194) events; beyond, the oldest stored is evicted. */
  maxStoredEvents: 10_000,
  /** Bytes of stored events as JSON; beyond, the oldest stored are evicted. */
  maxStoredBytes: 8 * 1024 * 1024,
  /**
   * The most of the store (events and bytes) one remote address or one author may hold: past it,
   * its own oldest event goes (each keeps its newest). The sandbox's own wallets' info events are
   * kept apart: never evicted, not counted.
   */
  maxStoredShare: 0.1,
  /** Bytes a second sent to one connection; a subscription that would get more is CLOSED "rate-limited: …". */
  maxBytesOutPerSecond: 1024 * 1024,
  /** Bytes a second sent to all connections of one remote address; the same. */
  maxBytesOutPerSecondPerAddress: 2 * 1024 * 1024,
  /**
   * Bytes a second sent to all connections; past it, clients' EVENTs get OK false "rate-limited: …"
   * until it has refilled (the sandbox's own wallets' events are still sent).
   */
  maxBytesOutPerSecondInAll: 8 * 1024 * 1024,
  /**
   * Matching work a second one connection may cause, in steps (checking an event against one
   * filter: 1, plus 1 per tag of the event for each `#x` list of the filter). An EVENT whose
   * matching would go beyond gets OK false "rate-limited: …"; a REQ whose stored results would, CLOSED.
   */
  maxMatchWorkPerSecond: 100_000,
  /** The same, for all connections of one remote address. */
  maxMatchWorkPerSecondPerAddress: 200_000,
  /** The same, for all connections. */
  maxMatchWorkPerSecondInAll: 1_000_000,
  /** Ids of the last relayed (not stored) events remembered: the same event again is a duplicate, not broadcast again. */
  recentEventIds: 10_000,
} as const;

/** The relay's limits; `SandboxRelay` takes any of them overridden. */
export type RelayLimits = { readonly [K in keyof typeof RELAY_LIMITS]: number };

/*
 * Memory bound, in payload bytes (JSON); parsed, the JS objects take about 1.4 times as much:
 *   strangers' stored events      ≤ maxStoredBytes (one address or author ≤ a tenth)      8 MiB
 *   the sandbox's own info events ≈ 0.5 KiB per wallet it serves (never evicted)
 *   recent relayed event ids      ≤ recentEventIds × 64 characters                      ≈ 1.5 MiB
 *   per connection:
 *     incoming                    ≤ one socket read + one message being assembled         128 KiB
 *     unsent output               ≤ maxBufferedBytes + one outgoing message               192 KiB
 *     open subscriptions          ≤ maxSubscriptions × maxFilterBytes                     160 KiB
 *   × maxConnections (200)        ≈ 200 × 480 KiB                                       ≈ 94 MiB
 *   total                                                                              ≈ 104 MiB
 * One address (maxConnectionsPerAddress = 20 connections) can hold ≈ 9.4 MiB of it plus its
 * share of the store (0.8 MiB). A flood adds nothing: messages are handled as they arrive (the
 * store is in memory, so no queue builds), and the 101st in a second closes the connection.
 * Open subscriptions are held compiled (their lists as sets) in the subscription index: the same
 * values as their filters, within the 160 KiB a connection above.
 *
 * Time bound: the byte and matching budgets above cap what clients can make the relay do in a
 * second (≤ 8 MiB sent, ≤ 1,000,000 matching steps, in all), so the HTTP API sharing its event
 * loop keeps answering; `BENCH_ONLY=relay npm run bench` measures it.
 */
