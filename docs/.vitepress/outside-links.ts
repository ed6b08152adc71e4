/**
 * Links from a page to a file outside `docs/` (`../examples/…`, `../../src/…`) have no page on
 * the site (the sandbox serves `docs/` only, and an installed package has no checkout beside it):
 * they become their plain text, so the site has no broken link. A markdown-it core rule, run on
 * each page before VitePress renders (and checks) its links.
 */
import { posix } from 'node:path';
import type MarkdownIt from 'markdown-it';

/** Adds the rule to `md`. */
export function unlinkOutsideLinks(md: MarkdownIt): void {
  md.core.ruler.push('unlink-outside-docs', (state) => {
    const page = (state.env as { relativePath?: string }).relativePath ?? '';
    for (const block of state.tokens) {
      const children = block.children;
      if (children === null) continue;
      const depth: boolean[] = [];
      block.children = children.filter((token) => {
        if (token.type === 'link_open') {
          const outside = leavesDocs(page, token.attrGet('href') ?? '');
          depth.push(outside);
          return !outside;
        }
        if (token.type === 'link_close') return !depth.pop();
        return true;
      });
    }
  });
}

/** Whether a relative `href` of the page at `page` (e.g. `guides/x.md`) points above `docs/`. */
export function leavesDocs(page: string, href: string): boolean {
  if (/^[a-z][a-z0-9+.-]*:|^\/|^#/i.test(href)) return false;
  const target = posix.normalize(posix.join(posix.dirname(page), href.split(/[?#]/)[0]!));
  return target === '..' || target.startsWith('../');
}
