import type { Ad } from './types';

/**
 * "Why this ad?": the small control every ad carries, and the panel it opens. The panel says who
 * pays for the ad, which of the advertiser's hints the conversation matched (or that none was
 * read), and that the conversation was not stored; its "Hide this ad" asks the client to hide it.
 * Everything in it is text. It is the ad's own element (so it takes the page's `--mz-*` theme
 * where the ad does) and floats above the page, fixed beside the control, so the ad's slot keeps
 * its size; and it closes on Escape, on Close, on a click elsewhere, and when what
 * holds the control scrolls.
 */

function node<K extends keyof HTMLElementTagNameMap>(doc: Document, tag: K, className: string, text?: string): HTMLElementTagNameMap[K] {
  const n = doc.createElement(tag);
  n.className = className;
  if (text !== undefined) n.textContent = text;
  return n;
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
  const button = node(doc, 'button', 'mz-why', 'i');
  button.type = 'button';
  button.title = 'Why this ad?';
  button.setAttribute('aria-label', 'Why this ad?');
  button.setAttribute('aria-haspopup', 'dialog');
  button.addEventListener('click', (e) => {
    // Inside a clickable host element, the control is the ad's own.
    e.preventDefault();
    e.stopPropagation();
    open(button);
  });
  return button;
}

/** Opens the panel for `ad` beside `button`; answers a function that closes it. */
export function openWhy(button: HTMLElement, ad: Ad, hide: () => void): () => void {
  const doc = button.ownerDocument;
  const win = doc.defaultView ?? window;
  const panel = node(doc, 'div', 'mz-panel');
  panel.setAttribute('role', 'dialog');
  panel.setAttribute('aria-label', 'Why this ad?');
  panel.append(node(doc, 'p', 'mz-head', 'Why this ad?'), ...whyLines(ad).map((line) => node(doc, 'p', '', line)));
  const hideButton = node(doc, 'button', 'mz-button', 'Hide this ad');
  const closeButton = node(doc, 'button', 'mz-button', 'Close');
  hideButton.type = closeButton.type = 'button';
  const row = node(doc, 'div', 'mz-row');
  row.append(hideButton, closeButton);
  panel.append(row);

  let open = true;
  const close = (): void => {
    if (!open) return;
    open = false;
    panel.remove();
    doc.removeEventListener('keydown', onKey, true);
    doc.removeEventListener('pointerdown', onOutside, true);
    win.removeEventListener('scroll', onScroll, true);
    win.removeEventListener('resize', close);
    if (button.isConnected) button.focus();
  };
  const onKey = (e: KeyboardEvent): void => {
    if (e.key === 'Escape') close();
  };
  // The page, or a box the control is in, scrolled: the panel would no longer be beside it.
  const onScroll = (e: Event): void => {
    const from = e.target as Node;
    if (from === doc || from.contains?.(button)) close();
  };
  const onOutside = (e: Event): void => {
    if (!panel.contains(e.target as Node) && e.target !== button) close();
  };
  hideButton.addEventListener('click', () => {
    close();
    hide();
  });
  closeButton.addEventListener('click', close);

  button.parentElement!.append(panel);
  // Below the control, or above it where the window ends; never past the window's sides.
  const at = button.getBoundingClientRect();
  const width = panel.offsetWidth;
  const height = panel.offsetHeight;
  panel.style.left = `${Math.max(8, Math.min(at.left, win.innerWidth - width - 8))}px`;
  panel.style.top = `${at.bottom + 6 + height <= win.innerHeight ? at.bottom + 6 : Math.max(8, at.top - 6 - height)}px`;
  hideButton.focus();
  doc.addEventListener('keydown', onKey, true);
  doc.addEventListener('pointerdown', onOutside, true);
  win.addEventListener('scroll', onScroll, true);
  win.addEventListener('resize', close);
  return close;
}
