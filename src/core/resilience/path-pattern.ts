/**
 * Paths and path patterns of `/api/v1` calls, as faults and journal filters name them:
 * `/api/v1/payment-requests/{id}/status` matches any id; a path without `{…}` matches itself.
 */

/** A matcher of request paths (without their query). */
export type PathMatcher = (path: string) => boolean;

/** The matcher of a path or pattern; compiled once. */
export function pathMatcher(pattern: string): PathMatcher {
  if (!pattern.includes('{')) return (path) => path === pattern;
  const source = pattern
    .split('/')
    .map((segment) => (/^\{[^{}]*\}$/.test(segment) ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  const regex = new RegExp(`^${source}$`);
  return (path) => regex.test(path);
}
