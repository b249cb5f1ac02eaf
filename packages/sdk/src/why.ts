import type { Ad } from './types';

/**
 * "Why this ad?": the small control every ad carries, and the panel it opens. The panel says who
 * pays for the ad, which of the advertiser's hints the conversation matched (or that none was
 * read), and that the conversation was not stored; its "Hide this ad" asks the client to hide it.
 * Everything in it is text. It is the ad's own element (so it takes the page's `--mz-*` theme
 * where the ad does) and floats above the page, fixed beside the control, so the ad's slot keeps
 * its size, and follows the control when the page scrolls. It closes on Escape, on Close, on a
 * second press of the control, on a click elsewhere, and with its ad. (An ancestor of the ad with a
 * `transform`, `filter` or `contain` holds fixed elements to itself: the panel then sits within it.)
 */

/** An element of `doc`, with its class and its text (as text, never markup): the one helper the ads' markup is made with. */
export function el<K extends keyof HTMLElementTagNameMap>(doc: Document, tag: K, className?: string, text?: string): HTMLElementTagNameMap[K] {
  const node = doc.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** What the panel says about an ad: each line is a paragraph. */
export function whyLines(ad: Ad): string[] {
  const matched = ad.why?.matched ?? [];
  return [
    `This ad is from ${ad.ad.advertiser}, who pays for it to be shown here.`,
    ad.why
      ? matched.length > 0
        ? `It fits what this conversation is about: ${matched.join(', ')}.`
        : 'It fits this conversation.'
      : 'It was chosen for this app, not for your conversation.',
    ad.why ? 'Your conversation was used to choose this ad and was not stored.' : 'Your conversation was not sent to choose it.',
  ];
}

/** The control, for the ad's markup: a button outside the ad's link. */
export function whyButton(doc: Document, open: (button: HTMLButtonElement) => void): HTMLButtonElement {
  const button = el(doc, 'button', 'mz-why', 'i');
  button.type = 'button';
  button.title = 'Why this ad?';
  button.setAttribute('aria-label', 'Why this ad?');
  button.setAttribute('aria-haspopup', 'dialog');
  button.setAttribute('aria-expanded', 'false');
  button.addEventListener('click', (e) => {
    // Inside a clickable host element, the control is the ad's own.
    e.preventDefault();
    e.stopPropagation();
    open(button);
  });
  return button;
}

/** The panels open now, by their control: a second press of the control closes its panel. */
const opened = new WeakMap<HTMLElement, () => void>();
let panels = 0;

/**
 * Opens the panel for `ad` beside `button`, or closes it when it is open; answers a function that
 * closes it. The focus goes to its Close button, and back to the control when it closes from
 * inside; the panel is described by its lines, for screen readers.
 */
export function openWhy(button: HTMLElement, ad: Ad, hide: () => void): () => void {
  const open = opened.get(button);
  if (open) {
    open();
    return () => {};
  }
  const doc = button.ownerDocument;
  const win = doc.defaultView ?? window;
  const panel = el(doc, 'div', 'mz-panel');
  const id = `mz-why-${++panels}`;
  panel.setAttribute('role', 'dialog');
  panel.setAttribute('aria-label', 'Why this ad?');
  panel.setAttribute('aria-describedby', `${id}-0 ${id}-1 ${id}-2`);
  panel.append(
    el(doc, 'p', 'mz-head', 'Why this ad?'),
    ...whyLines(ad).map((line, i) => {
      const p = el(doc, 'p', '', line);
      p.id = `${id}-${i}`;
      return p;
    }),
  );
  const hideButton = el(doc, 'button', 'mz-button', 'Hide this ad');
  const closeButton = el(doc, 'button', 'mz-button', 'Close');
  hideButton.type = closeButton.type = 'button';
  const row = el(doc, 'div', 'mz-row');
  row.append(hideButton, closeButton);
  panel.append(row);

  const close = (): void => {
    if (opened.get(button) !== close) return;
    opened.delete(button);
    button.setAttribute('aria-expanded', 'false');
    const focused = panel.contains(doc.activeElement);
    panel.remove();
    doc.removeEventListener('keydown', onKey, true);
    doc.removeEventListener('pointerdown', onOutside, true);
    win.removeEventListener('scroll', place, true);
    win.removeEventListener('resize', place);
    if (focused && button.isConnected) button.focus({ preventScroll: true });
  };
  const onKey = (e: KeyboardEvent): void => {
    if (e.key === 'Escape') close();
  };
  // Below the control, or above it where the window ends; never past the window's sides.
  const place = (): void => {
    const at = button.getBoundingClientRect();
    const height = panel.offsetHeight;
    panel.style.left = `${Math.max(8, Math.min(at.left, win.innerWidth - panel.offsetWidth - 8))}px`;
    panel.style.top = `${at.bottom + 6 + height <= win.innerHeight ? at.bottom + 6 : Math.max(8, at.top - 6 - height)}px`;
  };
  const onOutside = (e: Event): void => {
    if (!panel.contains(e.target as Node) && !button.contains(e.target as Node)) close();
  };
  hideButton.addEventListener('click', () => {
    close();
    hide();
  });
  closeButton.addEventListener('click', close);

  opened.set(button, close);
  button.setAttribute('aria-expanded', 'true');
  button.parentElement!.append(panel);
  place();
  closeButton.focus({ preventScroll: true });
  doc.addEventListener('keydown', onKey, true);
  doc.addEventListener('pointerdown', onOutside, true);
  // The page, or a box the control is in, scrolled or resized: the panel stays beside it.
  win.addEventListener('scroll', place, { capture: true, passive: true });
  win.addEventListener('resize', place);
  return close;
}
