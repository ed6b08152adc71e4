/**
 * NWC wallets across a takeover: three `lnpr serve --database-url` replicas behind a round-robin
 * balancer (test/support/replica-set.ts), a funded test wallet and the default NWC account, Alby's
 * `@getalby/sdk` 7 connected through the balancer with the wallet's nwcUrl. `getInfo` and
 * `payInvoice` work; then the replica running the relay and serving both accounts is SIGKILLed,
 * and within 10 s of the kill the wallet's kind-13194 info event is on the relay again
 * (nostr-tools, through the balancer), a new client
 * gets `getInfo` and pays a new invoice (custodial and NWC account), and the requests complete.
 * What the client connected before the kill does is recorded; a wallet made after the takeover
 * works too. Skipped, saying why, where no PostgreSQL binaries exist (never in CI).
 */
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sdk, type SdkClient } from './support/alby-sdk.js';
import { parseNwcUrl } from './support/nostr-tools-nwc.js';
import { postgresAvailable, startPostgresCluster, type PostgresCluster } from './support/postgres-cluster.js';
import { freshDatabase } from './support/postgres-database.js';
import { startReplicaSet, type ReplicaSet } from './support/replica-set.js';
import { createBody, KEYS, type ApiInit } from './support/sandbox-server.js';
import { bounded, boundedApi, describeError, infoEvents, retryUntil } from './support/bounded-waits.js';

const available = postgresAvailable();
if (!available.ok) console.warn(`replica wallet tests skipped: ${available.why}`);

describe.skipIf(!available.ok)('NWC wallets through three replicas, across a SIGKILL of the replica running the relay and serving the accounts', () => {
  let cluster: PostgresCluster;
  let set: ReplicaSet | undefined;
  const clients: SdkClient[] = [];
  beforeAll(async () => {
    cluster = await startPostgresCluster();
  }, 120_000);
  afterAll(async () => {
    for (const client of clients.splice(0)) client.close();
    await set?.close();
    cluster?.destroy();
  }, 60_000);

  const client = (nwcUrl: string): SdkClient => {
    const made = new sdk.NWCClient({ nostrWalletConnectUrl: nwcUrl });
    clients.push(made);
    return made;
  };

  it('a test wallet and an NWC account pay before and after the takeover; a wallet made after it works', { timeout: 150_000 }, async () => {
    set = await startReplicaSet(await freshDatabase(cluster), 3);
    const balancer = set.balancer.url;
    const call = (path: string, init: ApiInit = {}) => boundedApi(balancer, path, init);
    const completed = async (id: string, key: string, ms: number) =>
      retryUntil(Date.now() + ms, async () => {
        const read = await call(`/api/v1/payment-requests/${id}`, { key });
        if (read.body?.status !== 'completed') throw new Error(`${id}: ${read.status} ${read.body?.status}`);
        return read.body;
      });

    // A funded test wallet, made through the relay's replica (the first started), which so serves
    // acct_custodial, as it serves acct_nwc (first used through it too): the kill below takes the
    // relay and both accounts away at once. Its nwcUrl names the balancer's relay.
    const relayReplica = await set.relayReplica();
    expect(relayReplica).toBe(set.replicas[0]);
    const wallet = await boundedApi(relayReplica!.url, '/sandbox/v1/wallets', { body: { balance: 100_000 } });
    expect(wallet.status).toBe(201);
    expect((await boundedApi(relayReplica!.url, '/sandbox/v1/wallets', { key: KEYS.nwc })).status).toBe(200);
    expect([await set.ownerOf('acct_custodial'), await set.ownerOf('acct_nwc')]).toEqual([relayReplica, relayReplica]);
    const { walletPubkey, relay } = parseNwcUrl(wallet.body.nwcUrl);
    expect(relay).toBe(`${balancer.replace(/^http/, 'ws')}/nostr`);
    expect((await infoEvents(relay, walletPubkey, 5_000)).length).toBe(1);

    // Before the kill: getInfo, and payInvoice of a custodial and an NWC account's request.
    const before = client(wallet.body.nwcUrl);
    const info = await bounded(before.getInfo(), 10_000, 'getInfo before the kill');
    expect(info.methods).toContain('pay_invoice');
    for (const key of [KEYS.custodial, KEYS.nwc]) {
      const request = await call('/api/v1/payment-requests', { key, body: createBody({ amount: 1_000 }) });
      expect(request.status).toBe(201);
      const paid = await bounded(before.payInvoice({ invoice: request.body.invoice }), 10_000, 'payInvoice before the kill');
      expect(bytesToHex(sha256(hexToBytes(paid.preimage)))).toBe(request.body.paymentHash);
      expect((await completed(request.body.id, key, 5_000)).value.preimage).toBe(paid.preimage);
    }
    // Requests for after the kill, made now: their invoices are the sandbox's.
    const custodialAfter = await call('/api/v1/payment-requests', { body: createBody({ amount: 2_100 }) });
    expect(custodialAfter.status).toBe(201);

    // SIGKILL of the replica running the relay and serving both accounts.
    expect(await set.relayReplica()).toBe(relayReplica);
    relayReplica!.child.kill('SIGKILL');
    const killedAt = Date.now();
    await relayReplica!.exited;
    const deadline = killedAt + 10_000;

    // The app's own HTTP traffic meanwhile: reads through the balancer (three in a row reach both
    // survivors) wait for the takeover and are answered. (With the old shape they were also what
    // made a standby forget the dead leader for WebSocket upgrades; the next describe shows relay
    // traffic alone now suffices.)
    for (let n = 0; n < 3; n += 1) {
      const read = await bounded(call(`/api/v1/payment-requests/${custodialAfter.body.id}`), Math.max(deadline - Date.now(), 1), 'a read after the kill');
      expect([read.status, read.body.status]).toEqual([200, 'pending']);
    }
    const readsAfter = Date.now() - killedAt;

    // The wallet's info event is on the relay again, through the balancer.
    const infoBack = await retryUntil(deadline, async (left) => {
      const events = await infoEvents(relay, walletPubkey, Math.min(left, 3_000));
      if (events.length === 0) throw new Error('no kind-13194 event yet');
      return events;
    });
    const infoAfter = Date.now() - killedAt;
    expect(infoBack.value.every((event) => event.pubkey === walletPubkey)).toBe(true);

    // A new client: getInfo, then it pays a new invoice, and the request completes.
    const after = client(wallet.body.nwcUrl);
    const gotInfo = await retryUntil(deadline, (left) => bounded(after.getInfo(), Math.min(left, 5_000), 'getInfo after the kill'));
    const getInfoAfter = Date.now() - killedAt;
    expect(gotInfo.value.methods).toContain('pay_invoice');
    const paid = await bounded(after.payInvoice({ invoice: custodialAfter.body.invoice }), Math.max(deadline - Date.now(), 1), 'payInvoice after the kill');
    expect(bytesToHex(sha256(hexToBytes(paid.preimage)))).toBe(custodialAfter.body.paymentHash);
    await completed(custodialAfter.body.id, KEYS.custodial, Math.max(deadline - Date.now(), 1));
    const paidAfter = Date.now() - killedAt;

    // The NWC account's own wallet is back too: a create asks it for an invoice, and it is paid.
    const nwcRequest = await call('/api/v1/payment-requests', { key: KEYS.nwc, body: createBody({ amount: 1_500 }) });
    expect(nwcRequest.status).toBe(201);
    await bounded(after.payInvoice({ invoice: nwcRequest.body.invoice }), 10_000, 'payInvoice of an NWC request after the kill');
    await completed(nwcRequest.body.id, KEYS.nwc, 5_000);

    // The client connected before the kill: whether it reconnects by itself (recorded, not required).
    const old = await bounded(before.getInfo(), 10_000, 'the old client').then(
      (answer) => `answered getInfo (${answer.methods.length} methods)`,
      (error: unknown) => `failed: ${describeError(error)}`,
    );

    // A wallet made after the takeover works.
    const later = await call('/sandbox/v1/wallets', { body: { balance: 5_000 } });
    expect(later.status).toBe(201);
    const laterClient = client(later.body.nwcUrl);
    expect((await bounded(laterClient.getInfo(), 10_000, 'getInfo of a wallet made after the takeover')).methods).toContain('pay_invoice');
    const laterRequest = await call('/api/v1/payment-requests', { body: createBody({ amount: 1_200 }) });
    await bounded(laterClient.payInvoice({ invoice: laterRequest.body.invoice }), 10_000, 'payInvoice by a wallet made after the takeover');
    await completed(laterRequest.body.id, KEYS.custodial, 5_000);
    expect((await bounded(laterClient.getBalance(), 10_000, 'getBalance')).balance).toBe((5_000 - 1_200) * 1000);

    // The first wallet's balance: every payment counted once.
    const balance = await call(`/sandbox/v1/wallets/${wallet.body.id}`);
    expect(balance.body.balance).toBe(100_000 - 1_000 - 1_000 - 2_100 - 1_500);

    const takenOver = set.replicas.filter((replica) => replica.output().stdout.includes('serving account acct_custodial (taken over)'));
    expect(takenOver.length).toBe(1);
    console.log(
      `replicas-wallets: after the SIGKILL of the relay's replica (serving both accounts): 3 reads answered by ${readsAfter} ms, info event back at ${infoAfter} ms (${infoBack.failures.length} failed tries), ` +
        `a new client's getInfo at ${getInfoAfter} ms (${gotInfo.failures.length} failed tries: ${gotInfo.failures.join(' | ').slice(0, 300)}), ` +
        `paid and completed at ${paidAfter} ms; the client from before the kill ${old}; balancer: ${JSON.stringify([...set.balancer.served])}`,
    );
    expect(paidAfter).toBeLessThan(10_000 + 1_000);
  });
});

describe.skipIf(!available.ok)('the relay through each surviving replica after a SIGKILL of the relay\'s replica', () => {
  let cluster: PostgresCluster;
  let set: ReplicaSet | undefined;
  beforeAll(async () => {
    cluster = await startPostgresCluster();
  }, 120_000);
  afterAll(async () => {
    await set?.close();
    cluster?.destroy();
  }, 60_000);

  // Found with the old shape: a standby cached the leader's URL and forgot it only when a
  // forwarded HTTP request failed, so with relay traffic only it kept sending every upgrade to the
  // dead leader (an NWC app whose balancer pins its WebSocket could not reach its wallet). Each
  // upgrade now reads the relay's replica afresh. Contract: "within 5 s the others take over ...
  // NWC wallets and their connections", "answered within 10 s of the kill".
  it('a REQ for the wallet\'s info event, by WebSocket only, is answered through every survivor within 10 s of the kill', { timeout: 90_000 }, async () => {
    set = await startReplicaSet(await freshDatabase(cluster), 3);
    const wallet = await boundedApi(set.balancer.url, '/sandbox/v1/wallets', { body: { balance: 10_000 } });
    expect(wallet.status).toBe(201);
    const { walletPubkey } = parseNwcUrl(wallet.body.nwcUrl);
    const relayReplica = await set.relayReplica();
    expect(relayReplica).toBeDefined();
    const survivors = set.replicas.filter((replica) => replica !== relayReplica);
    // Each survivor forwards to the relay's replica before the kill (HTTP and the relay), so it knows where it is.
    for (const survivor of survivors) {
      expect((await boundedApi(survivor.url, '/healthz', { key: null })).status).toBe(200);
      expect((await infoEvents(`${survivor.url.replace(/^http/, 'ws')}/nostr`, walletPubkey, 5_000)).length).toBe(1);
    }

    relayReplica!.child.kill('SIGKILL');
    const killedAt = Date.now();
    await relayReplica!.exited;
    // Only relay traffic from here on: a REQ through each survivor, directly, until it is answered.
    const outcomes = await Promise.all(
      survivors.map(async (survivor) => {
        const relayUrl = `${survivor.url.replace(/^http/, 'ws')}/nostr`;
        const leads = () => survivor.output().stdout.includes('running the relay');
        try {
          const { failures } = await retryUntil(killedAt + 10_000, async (left) => {
            if ((await infoEvents(relayUrl, walletPubkey, Math.min(left, 2_000))).length === 0) throw new Error('no kind-13194 event');
          });
          return { leads: leads(), answeredAfter: Date.now() - killedAt, failures: failures.length, lastFailure: failures.at(-1) };
        } catch (error) {
          return { leads: leads(), answeredAfter: undefined, failure: describeError(error).slice(0, 200) };
        }
      }),
    );
    // For the report: one HTTP request through each, then the relay through it again.
    const healed = await Promise.all(
      survivors.map(async (survivor) => {
        const health = await boundedApi(survivor.url, '/healthz', { key: null });
        const events = await infoEvents(`${survivor.url.replace(/^http/, 'ws')}/nostr`, walletPubkey, 5_000).then((found) => found.length, describeError);
        return { healthz: health.status, infoEvents: events };
      }),
    );
    console.log(`the relay through each survivor after the kill: ${JSON.stringify(outcomes)}; after one HTTP request through each: ${JSON.stringify(healed)}`);
    expect(outcomes.filter((outcome) => outcome.answeredAfter === undefined)).toEqual([]);
  });
});
