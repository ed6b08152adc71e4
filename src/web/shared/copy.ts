/** "Copy" buttons: the clipboard where the browser allows it, else the text selected for the person to copy. */
import { h } from './dom.js';

/**
 * A button named `label` that copies `text()`; says "Copied" (to screen readers too, through
 * `announce`) for a moment. When the browser refuses the clipboard, the contents of `select()` are
 * selected instead (an element that hides a secret may show it then: it is what was asked for).
 * `what` names the text in those announcements ("invoice", "NWC URL").
 */
export function copyButton(
  label: string,
  text: () => string,
  select: () => HTMLElement,
  announce: (message: string) => void,
  what = 'invoice',
): HTMLButtonElement {
  const button = h('button', { type: 'button', class: 'secondary' }, label);
  button.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(text());
      button.textContent = 'Copied';
      announce(`${what.charAt(0).toUpperCase()}${what.slice(1)} copied to the clipboard.`);
    } catch {
      const range = document.createRange();
      range.selectNodeContents(select());
      const selection = getSelection();
      selection?.removeAllRanges();
      selection?.addRange(range);
      announce(`The browser refused the clipboard: the ${what} is selected, copy it with your keyboard.`);
    }
    setTimeout(() => (button.textContent = label), 2_000);
  });
  return button;
}
