/** Building the pages' DOM without innerHTML: elements with text, attributes and children. */

/** What `h` accepts as a child. */
export type Child = Node | string | number | null | undefined | false;

/** Attributes of `h`: strings set as attributes, booleans present or absent, functions as `on…` listeners. */
export type Props = Record<string, string | number | boolean | null | undefined | ((event: Event) => void)>;

/** An element `tag` with `props` (`class`, attributes, `onclick`…) and `children`. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, props: Props = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (typeof value === 'function') element.addEventListener(name.slice(2), value);
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  append(element, children);
  return element;
}

/** Appends `children` to `parent`, skipping empty ones. */
export function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
  }
}

/** Replaces the children of `parent`. */
export function replaceChildren(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

/** The element with this id; throws when the page lacks it (a bug in the page). */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const element = document.getElementById(id);
  if (element === null) throw new Error(`the page has no #${id}`);
  return element as T;
}
