/**
 * A database URL as it may be shown: in messages and banners its password is `***`. (No import of
 * the PostgreSQL client here: `lnpr serve` uses it before deciding to load one.)
 */

/** The URL with its password, if any, replaced by `***`; `(not a URL)` for what does not parse. */
export function redactedDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(not a URL)';
  }
}
