/**
 * The request journal (`GET /sandbox/v1/requests`): each account's own `/api/v1` calls, what was
 * sent and what was answered, with the fault applied, so a test can assert on what its code really
 * did ("exactly one create with metadata.orderId = A-1"). Entries are kept as they came (texts,
 * parsed only when listed), newest last: the journaling itself costs a request an object and a
 * header copy. Bounds: the last `KEPT_REQUESTS_PER_ACCOUNT` per account; bodies, answers and header
 * values cut to `KEPT_BODY_CHARS`/`KEPT_HEADER_CHARS`; all accounts together at most
 * `JOURNAL_BUDGET_CHARS` of text, past which the largest journal gives up its oldest. In memory
 * only: a restart empties it. `authorization`, `proxy-authorization` and `cookie` are never kept.
 */
import type { FaultAction, JournalEntryView } from '../../schemas/faults.js';
import { pathMatcher } from './path-pattern.js';

export const KEPT_REQUESTS_PER_ACCOUNT = 1_000;
export const KEPT_BODY_CHARS = 8 * 1024;
export const KEPT_HEADER_CHARS = 512;
export const KEPT_HEADERS = 50;
/** Characters of text kept by all journals together (~64 MiB as UTF-16). */
export const JOURNAL_BUDGET_CHARS = 32 * 1024 * 1024;

const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie']);

/** A call as the journal keeps it. */
interface Entry {
  id: string;
  method: string;
  path: string;
  query: string;
  /** The request's own headers object (a transport's, fresh per request): filtered and cut when listed. */
  headers: Readonly<Record<string, string | undefined>>;
  bodyText: string | undefined;
  status: number | null;
  responseText: string | undefined;
  fault: FaultAction | null;
  receivedAtMs: number;
  durationMs: number;
  chars: number;
}

/** What `list` filters on. */
export interface JournalFilter {
  method?: string;
  /** A path, or a pattern with `{name}` segments. */
  path?: string;
  status?: number;
  /** ISO 8601: calls received at or after it. */
  since?: string;
  limit?: number;
}

/** What a transport hands in for one call. */
export interface JournalRecord {
  method: string;
  url: string;
  headers: Readonly<Record<string, string | undefined>>;
  body: string | undefined;
  status: number | null;
  responseBody: string | undefined;
  fault: FaultAction | null;
  receivedAtMs: number;
  durationMs: number;
}

/** The journals of every account. */
export class RequestJournal {
  readonly #byAccount = new Map<string, Ring>();
  #chars = 0;
  #next = 0;

  /** Keeps one call of the account. */
  record(accountId: string, call: JournalRecord): void {
    const queryAt = call.url.indexOf('?');
    const bodyText = call.body === undefined || call.body === '' ? undefined : cut(call.body, KEPT_BODY_CHARS);
    const responseText = call.responseBody === undefined || call.responseBody === '' ? undefined : cut(call.responseBody, KEPT_BODY_CHARS);
    const entry: Entry = {
      id: `req_${(this.#next++).toString(36).padStart(10, '0')}`,
      method: call.method,
      path: queryAt === -1 ? call.url : call.url.slice(0, queryAt),
      query: queryAt === -1 ? '' : call.url.slice(queryAt + 1, queryAt + 1 + KEPT_HEADER_CHARS),
      // Kept as given, filtered and cut only when listed: a copy per call would cost every call.
      headers: call.headers,
      bodyText,
      status: call.status,
      responseText,
      fault: call.fault,
      receivedAtMs: call.receivedAtMs,
      durationMs: call.durationMs,
      // Headers count as a fixed share: a transport bounds them (Node: 16 KiB in all).
      chars: HEADER_CHARS_COUNTED + (bodyText?.length ?? 0) + (responseText?.length ?? 0) + call.url.length,
    };
    let journal = this.#byAccount.get(accountId);
    if (journal === undefined) this.#byAccount.set(accountId, (journal = new Ring()));
    const dropped = journal.push(entry);
    this.#chars += entry.chars - (dropped?.chars ?? 0);
    while (this.#chars > JOURNAL_BUDGET_CHARS) {
      const oldest = this.#largest()?.shift();
      if (oldest === undefined) break;
      this.#chars -= oldest.chars;
    }
  }

  /** The account's calls, newest first, filtered. */
  list(accountId: string, filter: JournalFilter = {}): JournalEntryView[] {
    const journal = this.#byAccount.get(accountId);
    const matchesPath = filter.path === undefined ? undefined : pathMatcher(filter.path);
    const sinceMs = filter.since === undefined ? undefined : Date.parse(filter.since);
    const limit = filter.limit ?? 100;
    const found: JournalEntryView[] = [];
    for (const entry of journal?.newestFirst() ?? []) {
      if (found.length >= limit) break;
      if (filter.method !== undefined && entry.method !== filter.method.toUpperCase()) continue;
      if (matchesPath !== undefined && !matchesPath(entry.path)) continue;
      if (filter.status !== undefined && entry.status !== filter.status) continue;
      if (sinceMs !== undefined && entry.receivedAtMs < sinceMs) continue;
      found.push(viewOf(entry));
    }
    return found;
  }

  /** Empties the account's journal. */
  clear(accountId: string): void {
    const journal = this.#byAccount.get(accountId);
    if (journal === undefined) return;
    this.#chars -= journal.chars;
    this.#byAccount.delete(accountId);
  }


  #largest(): Ring | undefined {
    let largest: Ring | undefined;
    for (const journal of this.#byAccount.values()) if (journal.chars > (largest?.chars ?? 0)) largest = journal;
    return largest;
  }
}

/** Characters a call's headers count for in the budget. */
const HEADER_CHARS_COUNTED = 1024;

/** One account's calls: a ring of the last KEPT_REQUESTS_PER_ACCOUNT, so keeping one costs no copy. */
class Ring {
  readonly #slots: Array<Entry | undefined> = [];
  /** Where the oldest is; the newest is just before it once the ring is full. */
  #start = 0;
  #size = 0;
  chars = 0;

  /** Adds the newest; returns the oldest it pushed out, if the ring was full. */
  push(entry: Entry): Entry | undefined {
    this.chars += entry.chars;
    if (this.#size < KEPT_REQUESTS_PER_ACCOUNT) {
      this.#slots[(this.#start + this.#size++) % KEPT_REQUESTS_PER_ACCOUNT] = entry;
      return undefined;
    }
    const dropped = this.#slots[this.#start]!;
    this.#slots[this.#start] = entry;
    this.#start = (this.#start + 1) % KEPT_REQUESTS_PER_ACCOUNT;
    this.chars -= dropped.chars;
    return dropped;
  }

  /** Removes and returns the oldest. */
  shift(): Entry | undefined {
    if (this.#size === 0) return undefined;
    const oldest = this.#slots[this.#start]!;
    this.#slots[this.#start] = undefined;
    this.#start = (this.#start + 1) % KEPT_REQUESTS_PER_ACCOUNT;
    this.#size--;
    this.chars -= oldest.chars;
    return oldest;
  }

  *newestFirst(): Generator<Entry> {
    for (let i = this.#size - 1; i >= 0; i--) yield this.#slots[(this.#start + i) % KEPT_REQUESTS_PER_ACCOUNT]!;
  }
}

function viewOf(entry: Entry): JournalEntryView {
  const headers: Record<string, string> = {};
  let count = 0;
  for (const name in entry.headers) {
    const value = entry.headers[name];
    if (value === undefined || SECRET_HEADERS.has(name.toLowerCase()) || count++ >= KEPT_HEADERS) continue;
    headers[name] = cut(String(value), KEPT_HEADER_CHARS);
  }
  return {
    id: entry.id,
    method: entry.method,
    path: entry.path,
    query: Object.fromEntries(new URLSearchParams(entry.query)),
    headers,
    body: parsed(entry.bodyText),
    status: entry.status,
    responseBody: parsed(entry.responseText),
    fault: entry.fault,
    receivedAt: new Date(entry.receivedAtMs).toISOString(),
    durationMs: entry.durationMs,
  };
}

/** JSON text as its value; other (or cut) text as is; nothing as null. */
function parsed(text: string | undefined): unknown {
  if (text === undefined) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function cut(text: string, chars: number): string {
  return text.length <= chars ? text : text.slice(0, chars);
}
