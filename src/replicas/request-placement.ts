/**
 * Which replica answers a request: the one serving the account it is about. The account is read
 * the way the engine reads it (the key in `Authorization`, through the engine's own directory), or
 * from the payment request a pay page names; a key made on another replica is found by reading
 * the accounts from the database again (`refreshAccounts`), so it works at once everywhere.
 * Anything about no account (the docs, health, a refused key) is answered here, and `/nostr`
 * upgrades go to the replica that runs the relay. The common case, a known key of an account
 * placed already, is decided without waiting.
 */
import type { IncomingMessage } from 'node:http';
import { ApiError } from '../core/errors/errors.js';
import type { AccountDirectory } from '../core/accounts/accounts.js';
import { pathOf } from '../core/pipeline/messages.js';
import { isRelayPath } from '../http/relay-transport.js';
import type { AccountOwners, Placement } from './account-owners.js';
import { withDeadline } from './leader-directory.js';

/** Where a request goes: answered here, forwarded to `url`, or refused (503: no replica can take it now). */
export type Decision = { face: 'sandbox' } | { face: 'forwarder'; url: string } | { face: 'refuse' };

/** What placing a request needs. */
export interface RequestPlacementOptions {
  owners: AccountOwners;
  /** The engine's directory of accounts and keys. */
  directory: () => AccountDirectory;
  /** Reads the accounts made through the accounts API from the database into the directory. */
  refreshAccounts: () => Promise<void>;
  /** The account of a payment request, if it is in this replica's memory. */
  localAccountOf: (paymentRequestId: string) => string | undefined;
  /** The account of a payment request, from the database. */
  storedAccountOf: (paymentRequestId: string) => Promise<string | undefined>;
  /** The relay's replica: undefined while it is this one, else its URL (waiting until the deadline). */
  relayReplica: (deadline: number, fresh?: boolean) => Promise<{ here: true } | { here: false; url: string } | undefined>;
  /** The relay's replica at `url` did not answer: look it up again. */
  forgetRelay: (url: string) => void;
  /** Whether a fellow replica forwarded the request (its placement may have been stale). */
  fromReplica: (request: IncomingMessage) => boolean;
  /** How long a request may wait to be placed; 10 s by default. */
  waitMs?: number;
}

const HERE: Decision = { face: 'sandbox' };
const REFUSE: Decision = { face: 'refuse' };
/** `/pay/{id}`, `/pay/{id}/stream`, `/sandbox/v1/pay-page/{id}` and `…/pay`: the id names the account. */
const PAY_PAGE = /^\/(?:pay|sandbox\/v1\/pay-page)\/([^/]+)(?:\/(?:stream|pay))?$/;
const ACCOUNT_PATH = /^\/sandbox\/v1\/accounts\/([^/]+)$/;

export class RequestPlacement {
  readonly #options: RequestPlacementOptions;
  readonly #waitMs: number;
  /** The account each request was placed for, so a forward that fails can be placed again. */
  readonly #accountOf = new WeakMap<IncomingMessage, string>();
  readonly #targetOf = new WeakMap<IncomingMessage, string>();
  #runningRefresh: Promise<void> | undefined;
  #queuedRefresh: Promise<void> | undefined;

  constructor(options: RequestPlacementOptions) {
    this.#options = options;
    this.#waitMs = options.waitMs ?? 10_000;
  }

  /** Where `request` goes; at once when its account's placement is known. */
  decide(request: IncomingMessage, upgrade: boolean): Decision | Promise<Decision> {
    const deadline = Date.now() + this.#waitMs;
    const url = request.url ?? '/';
    if (upgrade) return isRelayPath(url) ? this.#toRelay(request, deadline) : HERE;
    const path = pathOf(url);
    const payPage = PAY_PAGE.exec(path);
    if (payPage !== null) return this.#byPaymentRequest(request, safeDecode(payPage[1]!), deadline);
    const authorization = request.headers.authorization;
    if (authorization === undefined || !(path.startsWith('/api/') || path.startsWith('/sandbox/') || path.startsWith('/dashboard/api/'))) return HERE;
    const holder = this.#holder(authorization);
    if (holder === 'unknown') return this.#afterRefresh(request, authorization, path, deadline);
    return this.#byHolder(request, holder, path, deadline);
  }

  /** The URL a forwarded request goes to, waiting for one (the forwarder's `find`). */
  async target(request: IncomingMessage, deadline: number): Promise<string | undefined> {
    const known = this.#targetOf.get(request);
    if (known !== undefined) return known;
    const accountId = this.#accountOf.get(request);
    if (accountId === undefined) {
      const relay = await this.#options.relayReplica(deadline);
      return relay === undefined ? undefined : relay.here ? undefined : relay.url;
    }
    const placement = await this.#options.owners.place(accountId, deadline);
    if (placement === undefined) return undefined;
    // Placed here meanwhile (its owner was gone): sent to this replica's own door, which serves it.
    const next = placement.here ? this.#selfUrl : placement.url;
    if (next !== undefined) this.#targetOf.set(request, next);
    return next;
  }

  /** Forwarding `request` to `url` failed: its account's owner is looked up again. */
  forget(request: IncomingMessage, url: string): void {
    this.#targetOf.delete(request);
    const accountId = this.#accountOf.get(request);
    if (accountId !== undefined) this.#options.owners.forget(accountId, url);
    else this.#options.forgetRelay(url);
  }

  /** This replica's own URL, where a request placed here after a failed forward is sent. */
  #selfUrl: string | undefined;
  set selfUrl(url: string) {
    this.#selfUrl = url;
  }

  #holder(authorization: string): ReturnType<AccountDirectory['identify']> | 'unknown' | 'refused' {
    try {
      return this.#options.directory().identify(authorization);
    } catch (error) {
      // Only a well-formed key nobody here knows may be an account made on another replica.
      return error instanceof ApiError && error.message === 'Invalid API key.' ? 'unknown' : 'refused';
    }
  }

  async #afterRefresh(request: IncomingMessage, authorization: string, path: string, deadline: number): Promise<Decision> {
    const fresh = await withDeadline(this.#refreshAccounts(), deadline).then(() => true, () => false);
    const holder = this.#holder(authorization);
    return holder === 'unknown' ? HERE : this.#byHolder(request, holder, path, deadline, fresh);
  }

  #byHolder(request: IncomingMessage, holder: ReturnType<AccountDirectory['identify']> | 'refused', path: string, deadline: number, fresh = false): Decision | Promise<Decision> {
    if (holder === 'refused') return HERE;
    if (holder.account !== undefined) return this.#byAccount(request, holder.account.id, deadline, fresh);
    // A key that only manages accounts: a deletion goes to the account's replica; a listing is
    // answered here from the accounts as the database holds them.
    const deleted = request.method === 'DELETE' ? ACCOUNT_PATH.exec(path) : null;
    if (deleted !== null) {
      const accountId = safeDecode(deleted[1]!);
      return withDeadline(this.#refreshAccounts(), deadline).then(
        () => (this.#options.directory().accounts.has(accountId) ? this.#byAccount(request, accountId, deadline, true) : HERE),
        () => REFUSE,
      );
    }
    if (request.method === 'GET') return withDeadline(this.#refreshAccounts(), deadline).then(() => HERE, () => REFUSE);
    return HERE;
  }

  /** `fresh`: the accounts were read from the database for this very request. */
  #byAccount(request: IncomingMessage, accountId: string, deadline: number, fresh = false): Decision | Promise<Decision> {
    this.#accountOf.set(request, accountId);
    const owners = this.#options.owners;
    // A fellow replica sent it here believing this one serves the account: if it does not, its
    // placement is read afresh, not from this replica's cache (which may be as stale as the sender's).
    if (this.#options.fromReplica(request) && owners.placed(accountId)?.here !== true) owners.forget(accountId);
    const known = owners.placed(accountId);
    if (known !== undefined) return this.#decision(request, known);
    // Never placed here: an account the accounts API made may have been deleted since this replica
    // last read the accounts, and placing it would claim it, serving a deleted account. Read them
    // again first (once per account and replica); a deleted one is then answered here: 401.
    const created = !fresh && this.#options.directory().createdAccounts().some((record) => record.id === accountId);
    const stillThere = created ? withDeadline(this.#refreshAccounts(), deadline).then(() => this.#options.directory().accounts.has(accountId)) : Promise.resolve(true);
    return stillThere.then(
      (exists) => (exists ? owners.place(accountId, deadline).then((placement) => (placement === undefined ? REFUSE : this.#decision(request, placement))) : HERE),
      () => REFUSE,
    );
  }

  async #byPaymentRequest(request: IncomingMessage, id: string, deadline: number): Promise<Decision> {
    if (this.#options.localAccountOf(id) !== undefined) return HERE;
    const accountId = await withDeadline(this.#options.storedAccountOf(id), deadline).catch(() => null);
    if (accountId === null) return REFUSE;
    return accountId === undefined ? HERE : this.#byAccount(request, accountId, deadline);
  }

  async #toRelay(request: IncomingMessage, deadline: number): Promise<Decision> {
    // Read afresh: a socket to a relay that went away fails where the forwarder does not see it.
    const relay = await this.#options.relayReplica(deadline, true);
    if (relay === undefined) return REFUSE;
    if (relay.here) return HERE;
    this.#targetOf.set(request, relay.url);
    return { face: 'forwarder', url: relay.url };
  }

  #decision(request: IncomingMessage, placement: Placement): Decision {
    if (placement.here) return HERE;
    this.#targetOf.set(request, placement.url);
    return { face: 'forwarder', url: placement.url };
  }

  /**
   * Reads the accounts again for every request that needs it now: a read already running may have
   * missed an account made just before the request arrived, so the request waits for the next one
   * (at most one read running and one queued, whatever the number of unknown keys).
   */
  #refreshAccounts(): Promise<void> {
    if (this.#queuedRefresh !== undefined) return this.#queuedRefresh;
    if (this.#runningRefresh === undefined) return this.#runRefresh();
    const queued = this.#runningRefresh.catch(() => {}).then(() => {
      this.#queuedRefresh = undefined;
      return this.#runRefresh();
    });
    this.#queuedRefresh = queued;
    return queued;
  }

  #runRefresh(): Promise<void> {
    const running = this.#options.refreshAccounts().finally(() => {
      if (this.#runningRefresh === running) this.#runningRefresh = undefined;
    });
    this.#runningRefresh = running;
    return running;
  }
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
