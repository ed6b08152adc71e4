/**
 * The `return` query parameter of the pay page (`/pay/{id}?return=<URL>`): the merchant's page to
 * go back to once paid. Only an absolute `http:` or `https:` URL is taken; anything else
 * (`javascript:`, `data:`, a relative or malformed URL, one carrying a user name or password) is
 * ignored, so the page never makes a link of it.
 */

/** The return URL in `search` (`location.search`), or undefined when there is none worth a link. */
export function returnUrlOf(search: string): URL | undefined {
  const text = new URLSearchParams(search).get('return');
  if (text === null || text.trim() === '') return undefined;
  let url: URL;
  try {
    // No base: a relative URL throws, as a malformed one does.
    url = new URL(text);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  // https://shop.example@evil.example/ reads as the shop's to a hurried eye.
  if (url.username !== '' || url.password !== '') return undefined;
  return url;
}
