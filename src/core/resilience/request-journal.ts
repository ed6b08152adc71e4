/**
 * The request journal (`GET /sandbox/v1/requests`): each account's own `/api/v1` calls, what was
 * sent and what was answered, with the fault applied, so a test can assert on what its code really
 * did ("exactly one create with metadata.orderId = A-1"). Entries are kept as they came (texts,
 * parsed only when listed), newest last: the journaling itself costs a request an object and a
 * header copy. Bounds: the last `KEPT_REQUESTS_PER_ACCOUNT` per account; bodies, answers and header
 * values cut to `KEPT_BODY_CHARS`/`KEPT_HEADER_CHARS`; all accounts together at most
 * `JOURNAL_BUDGET_CHARS` of text, past which the largest journal gives up its oldest. In memory
 * only: a restart empties it. `authorization`, `proxy-authorization` and `cookie` are never shown.
 *
 * The budget counts what the journal holds, not what it shows: a cut body or answer is a copy of
 * its first 8 KiB (a slice would keep the whole text alive), and the URL and the request's headers
 * count in full (they are kept as given, and cut only when listed).
 */
import type { FaultAction, JournalEntryView } from '../../schemas/faults.js';
import { pathMatcher } from './path-pattern.js';
import { pathOf } from '../pipeline/messages.js';

export const KEPT_REQUESTS_PER_ACCOUNT = 1_000;
export const KEPT_BODY_CHARS = 8 * 1024;
export const KEPT_HEADER_CHARS = 512;
export const KEPT_HEADERS = 50;
/** Characters of text kept by all journals together (~64 MiB as UTF-16). */
export const JOURNAL_BUDGET_CHARS = 32 * 1024 * 1024;

const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie']);

/** A call as the journal keeps it. */
interface Entry {
  /** The call's number: its id (`req_…`) is written only when listed. */
  sequence: number;
  method: string;
  /** The URL as given (a transport's own string, bounded by it): path and query are read from it when listed. */
  url: string;
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
  readonly #budgetChars: number;
  #chars = 0;
  #next = 0;

  /** `budgetChars`: characters kept by all journals together (`JOURNAL_BUDGET_CHARS`; smaller in tests). */
  constructor({ budgetChars = JOURNAL_BUDGET_CHARS }: { budgetChars?: number } = {}) {
    this.#budgetChars = budgetChars;
  }

  /** Keeps one call of the account. */
  record(accountId: string, call: JournalRecord): void {
    const bodyText = call.body === undefined || call.body === '' ? undefined : keptPart(call.body, KEPT_BODY_CHARS);
    const responseText = call.responseBody === undefined || call.responseBody === '' ? undefined : keptPart(call.responseBody, KEPT_BODY_CHARS);
    const entry: Entry = {
      sequence: this.#next++,
      method: call.method,
      url: call.url,
      // Kept as given, filtered and cut only when listed: a copy per call would cost every call.
      headers: call.headers,
      bodyText,
      status: call.status,
      responseText,
      fault: call.fault,
      receivedAtMs: call.receivedAtMs,
      durationMs: call.durationMs,
      chars: ENTRY_CHARS_COUNTED + headerChars(call.headers) + (bodyText?.length ?? 0) + (responseText?.length ?? 0) + call.url.length,
    };
    let journal = this.#byAccount.get(accountId);
    if (journal === undefined) this.#byAccount.set(accountId, (journal = new Ring()));
    const dropped = journal.push(entry);
    this.#chars += entry.chars - (dropped?.chars ?? 0);
    while (this.#chars > this.#budgetChars) {
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
      if (matchesPath !== undefined && !matchesPath(pathOf(entry.url))) continue;
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

/** Characters an entry counts for besides its texts: its own object and the headers' (names and values count apart). */
const ENTRY_CHARS_COUNTED = 256;

/** The characters of a headers object's names and values: what keeping it as given holds. */
function headerChars(headers: Readonly<Record<string, string | undefined>>): number {
  let chars = 0;
  for (const name in headers) {
    const value: unknown = headers[name];
    // Node gives repeated `set-cookie` headers as an array.
    chars += name.length + (typeof value === 'string' ? value.length : value === undefined ? 0 : String(value).length);
  }
  return chars;
}

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
  const queryAt = entry.url.indexOf('?');
  return {
    id: `req_${entry.sequence.toString(36).padStart(10, '0')}`,
    method: entry.method,
    path: pathOf(entry.url),
    query: Object.fromEntries(new URLSearchParams(queryAt === -1 ? '' : entry.url.slice(queryAt + 1, queryAt + 1 + KEPT_HEADER_CHARS))),
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

/**
 * The text's first `chars` characters as a string of their own. A slice may be a view into the
 * whole text (V8 makes one of any slice of 13 characters or more), keeping all of it alive for as
 * long as the slice is kept: a 1 MB body cut to 8 KiB would still hold 1 MB. Joined to another
 * string and sliced again, the cut part is first copied flat (V8 flattens a joined string before
 * slicing it), and the result refers to that copy only. Plain JavaScript, so browsers run it too.
 */
function keptPart(text: string, chars: number): string {
  if (text.length <= chars) return text;
  return (' ' + text.slice(0, chars)).slice(1);
}
