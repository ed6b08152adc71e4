/**
 * Times for people: relative ("2 minutes ago", "in 1 hour") on the account's clock, which may run
 * ahead of real time or stand still, and the exact instant in `<time datetime>` and its title.
 */

/** An account clock as the API shows it. */
export interface ClockView {
  now: string;
  frozen: boolean;
}

/**
 * The account's clock between two reads: its last known time plus the real time since, or
 * standing still while frozen. Ticks locally; the server is asked again only after a change.
 */
export class AccountClock {
  #atMs = Date.now();
  #readAt = performance.now();
  #frozen = false;

  /** Takes a fresh reading. */
  set(view: ClockView): void {
    this.#atMs = Date.parse(view.now);
    this.#readAt = performance.now();
    this.#frozen = view.frozen;
  }

  /** The account's time now, epoch ms. */
  now(): number {
    return this.#frozen ? this.#atMs : this.#atMs + (performance.now() - this.#readAt);
  }

  get frozen(): boolean {
    return this.#frozen;
  }
}

const relative = new Intl.RelativeTimeFormat('en', { numeric: 'always' });
const UNITS: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ['year', 365 * 86_400_000],
  ['month', 30 * 86_400_000],
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
  ['second', 1_000],
];

/** `atMs` relative to `nowMs`: "in 5 minutes", "2 hours ago", "just now". */
export function relativeTime(atMs: number, nowMs: number): string {
  const difference = atMs - nowMs;
  if (Math.abs(difference) < 5_000) return 'just now';
  for (const [unit, ms] of UNITS) {
    if (Math.abs(difference) >= ms || unit === 'second') return relative.format(Math.trunc(difference / ms), unit);
  }
  return 'just now';
}

const absolute = new Intl.DateTimeFormat('en-GB', {
  weekday: 'short',
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  timeZone: 'UTC',
  timeZoneName: 'short',
});

/** An instant for people, in UTC (the API's times are UTC): "Tue, 3 Mar 2026, 10:00:05 UTC". */
export function absoluteTime(atMs: number): string {
  return absolute.format(atMs);
}

/** A duration as a countdown, in whole seconds rounded up (it reads 0:00 only once over): "59:32", "1:05:09", "2 days 3:00:00". */
export function countdown(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const days = Math.floor(total / 86_400);
  const hours = Math.floor((total % 86_400) / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = total % 60;
  const two = (n: number) => String(n).padStart(2, '0');
  const clock = hours > 0 || days > 0 ? `${hours}:${two(minutes)}:${two(seconds)}` : `${minutes}:${two(seconds)}`;
  return days > 0 ? `${days} day${days === 1 ? '' : 's'} ${clock}` : clock;
}

/** A span of time in words, for the clock's offset: "1 day 2 hours", "5 minutes", "less than a second". */
export function durationInWords(ms: number): string {
  const parts: string[] = [];
  let left = Math.round(Math.abs(ms) / 1000);
  for (const [unit, seconds] of [['day', 86_400], ['hour', 3600], ['minute', 60], ['second', 1]] as const) {
    const count = Math.floor(left / seconds);
    left -= count * seconds;
    if (count > 0 && parts.length < 2) parts.push(`${count} ${unit}${count === 1 ? '' : 's'}`);
  }
  return parts.length > 0 ? parts.join(' ') : 'less than a second';
}

/**
 * A `<time>` whose text says `prefix` and how long ago or ahead it is on `clock`, kept current by
 * `tickRelativeTimes`; its `datetime` and title give the exact instant.
 */
export function relativeTimeElement(iso: string, prefix: string, clock: AccountClock): HTMLTimeElement {
  const element = document.createElement('time');
  element.dateTime = iso;
  element.title = `${absoluteTime(Date.parse(iso))} (${iso})`;
  element.dataset.relative = prefix;
  element.textContent = `${prefix} ${relativeTime(Date.parse(iso), clock.now())}`.trim();
  return element;
}

/** Brings every relative `<time>` under `root` up to date with `clock`. */
export function tickRelativeTimes(root: ParentNode, clock: AccountClock): void {
  const nowMs = clock.now();
  for (const element of Array.from(root.querySelectorAll<HTMLTimeElement>('time[data-relative]'))) {
    const text = `${element.dataset.relative} ${relativeTime(Date.parse(element.dateTime), nowMs)}`.trim();
    if (element.textContent !== text) element.textContent = text;
  }
}
