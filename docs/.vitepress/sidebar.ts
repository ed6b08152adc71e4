/**
 * The sidebar, made by scanning `docs/`: top-level pages first, then one section per folder in
 * the agreed order (guides, concepts, reference, spec, contributing, then any other folder by
 * name). A page's title is its first `# ` heading (else its first heading, else its file name);
 * inside a section pages go by a frontmatter `order: N`, then by file name. No hand-kept list:
 * a page added to a folder appears in the sidebar.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { DefaultTheme } from 'vitepress';

/** Folders in the order their sections appear, with their titles. */
const SECTIONS: ReadonlyArray<readonly [folder: string, title: string]> = [
  ['guides', 'Guides'],
  ['concepts', 'Concepts'],
  ['reference', 'Reference'],
  ['spec', 'Specification'],
  ['contributing', 'Contributing'],
];
/** Folders that hold no pages. */
const NOT_PAGES = new Set(['.vitepress', 'public', 'screenshots', 'node_modules']);

interface Page {
  link: string;
  text: string;
  order: number;
  file: string;
}

/** The sidebar of the site whose pages are under `root`. */
export function sidebarOf(root: string): DefaultTheme.SidebarItem[] {
  const top = pagesIn(root, '');
  const folders = readdirSync(root).filter((name) => !NOT_PAGES.has(name) && statSync(join(root, name)).isDirectory());
  const known = SECTIONS.filter(([folder]) => folders.includes(folder));
  const others = folders.filter((folder) => !SECTIONS.some(([name]) => name === folder)).sort();
  const sections = [...known, ...others.map((folder) => [folder, titleCase(folder)] as const)]
    .map(([folder, text]) => ({ text, items: pagesIn(join(root, folder), `${folder}/`).map(({ text, link }) => ({ text, link })) }))
    .filter((section) => section.items.length > 0);
  return [{ text: 'Start', items: top.map(({ text, link }) => ({ text, link })) }, ...sections].filter((section) => section.items.length > 0);
}

/** The pages of one folder (not its subfolders), sorted. */
function pagesIn(dir: string, prefix: string): Page[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => name.endsWith('.md'))
    .map((file) => {
      const text = readFileSync(join(dir, file), 'utf8');
      const base = file.slice(0, -3);
      // index.md is the folder's own page; the top-level one is the home page.
      const link = `/${prefix}${base === 'index' ? '' : `${base}.html`}`;
      return { link, text: titleOf(text, base), order: orderOf(text, base), file };
    })
    .sort((a, b) => a.order - b.order || a.file.localeCompare(b.file));
}

/** The first `# ` heading, else the first heading of any level, else the file name. */
export function titleOf(markdown: string, fallback: string): string {
  const body = markdown.replace(/^---\n[\s\S]*?\n---\n/, '').replace(/```[\s\S]*?```/g, '');
  const heading = /^# (.+)$/m.exec(body) ?? /^#{2,6} (.+)$/m.exec(body);
  return heading ? heading[1]!.replace(/`/g, '').trim() : titleCase(fallback);
}

/** Frontmatter `order: N`; an index page comes first; otherwise after the ordered ones. */
function orderOf(markdown: string, base: string): number {
  const frontmatter = /^---\n([\s\S]*?)\n---\n/.exec(markdown)?.[1] ?? '';
  const order = /^order:\s*(-?\d+(?:\.\d+)?)\s*$/m.exec(frontmatter);
  if (order) return Number(order[1]);
  return base === 'index' ? -Infinity : Number.MAX_SAFE_INTEGER;
}

function titleCase(name: string): string {
  const words = name.replace(/[-_]+/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}
