import type { Format } from './types';

/**
 * The ads' look, injected once per page. Everything is scoped under `.mz-` classes and themed
 * with CSS custom properties the host page can set on any ancestor (or `:root`):
 * `--mz-bg`, `--mz-fg`, `--mz-muted`, `--mz-accent`, `--mz-border`, `--mz-radius`, `--mz-font`.
 * A slot given its format before the ad arrives keeps that much room (`.mz-slot-*`), so nothing
 * on the page moves when the ad, its fallback or nothing at all fills it.
 */
/**
 * The height each format keeps in its slot (a floating video floats: it takes none). The
 * follow-up's is its least, one row: on a narrow screen its question wraps to a second line, and
 * the slot grows rather than cut it.
 */
export const ROOM: Record<Exclude<Format, 'floating_video'>, string> = {
  inline_text: '1.6em',
  tooltip: '44px',
  sponsored_card: '120px',
  sponsored_follow_up: '2em',
};

/*
 * The card fits its 120 px whatever the page's font and width (98 px inside its border and padding):
 * - its image is drawn whole, never cropped: 96 px wide and as high as its aspect ratio makes it,
 *   up to the card's inner height (an image taller than that is scaled down whole, `contain`);
 * - its label, headline and call to action take one line each (an ellipsis cuts what is longer),
 *   with the card's own line height, 1.25; the text takes the whole lines left, two at most. Its
 *   `max-height` is the room left once those three lines and the gaps are taken, rounded down to
 *   whole lines, in the text's own em (.9 of the card's): (.75 + 1 + 1) × 1.25 / .9 = 3.82em, and
 *   3 gaps of 2px. Where `round()` is not supported, the text gives up its last line's pixels
 *   instead: the call to action always shows. A page's font of 16 px leaves two lines; 18 px, one.
 */

/*
 * The follow-up is one row that wraps: the label, its question (the link, drawn as a chip), the
 * advertiser and "Why this ad?". A question too long for what is left of the row takes a line of
 * its own and wraps inside its chip: 80 characters at .9em take two lines on a 390 px phone.
 * `overflow-wrap:anywhere` breaks even one long word, so nothing is ever wider than the slot, and
 * nothing is cut (no ellipsis, no clamp): its slot's room is a least (ROOM), and grows.
 */

const CSS = `
${Object.entries(ROOM)
  .map(
    ([format, height]) =>
      `.mz-slot-${format}{display:block;box-sizing:border-box;${format === 'sponsored_follow_up' ? 'min-' : 'overflow:hidden;'}height:${height}}`,
  )
  .join('\n')}
.mz-slot-inline_text{line-height:1.6em}
.mz-ad{font:inherit;font-family:var(--mz-font,inherit);color:var(--mz-fg,inherit)}
.mz-ad a{color:inherit;text-decoration:none}
.mz-ad a:focus-visible,.mz-ad button:focus-visible{outline:2px solid var(--mz-accent,#2563eb);outline-offset:2px}
.mz-label{font-size:.75em;font-weight:600;letter-spacing:.02em;color:var(--mz-muted,#6b7280);text-transform:uppercase}
.mz-inline{display:flex;align-items:baseline;min-width:0;white-space:nowrap}
.mz-inline .mz-label{margin-right:.4em;flex:none}
.mz-inline .mz-by{flex:none;padding-left:.25em}
.mz-inline a{min-width:0;overflow:hidden;text-overflow:ellipsis;text-decoration:underline;text-decoration-color:var(--mz-accent,#2563eb)}
.mz-tooltip,.mz-card,.mz-float,.mz-panel,.mz-follow a{background:var(--mz-bg,#fff);border:1px solid var(--mz-border,#e5e7eb);border-radius:var(--mz-radius,10px)}
.mz-follow{display:flex;flex-wrap:wrap;align-items:center;gap:4px 8px;font-size:.9em;line-height:1.25;overflow-wrap:anywhere}
.mz-follow a{padding:4px 12px}
.mz-follow .mz-by{color:var(--mz-muted,#6b7280)}
.mz-tooltip{display:flex;gap:.5em;align-items:center;height:44px;padding:0 .75em;box-sizing:border-box;font-size:.9em;overflow:hidden;white-space:nowrap}
.mz-tooltip a{overflow:hidden;text-overflow:ellipsis}
.mz-cta{color:var(--mz-accent,#2563eb);font-weight:600}
.mz-card{position:relative;height:120px;box-sizing:border-box;overflow:hidden;line-height:1.25}
.mz-card a{display:flex;gap:.75em;height:100%;padding:10px 30px 10px 12px;box-sizing:border-box}
.mz-card img{flex:none;align-self:center;width:96px;height:auto;max-height:100%;object-fit:contain;border-radius:calc(var(--mz-radius,10px) - 4px)}
.mz-card .mz-text{display:flex;flex-direction:column;justify-content:center;gap:2px;min-width:0}
.mz-card .mz-label,.mz-card .mz-title,.mz-card .mz-cta{flex:none;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.mz-card .mz-title{font-weight:600}
.mz-card .mz-body{font-size:.9em;color:var(--mz-muted,#6b7280);overflow:hidden;display:-webkit-box;-webkit-line-clamp:2;-webkit-box-orient:vertical;max-height:round(down,100% - 3.82em - 6px,1.25em)}
.mz-float,.mz-panel{position:fixed;box-shadow:0 8px 30px rgba(0,0,0,.18)}
.mz-float{right:16px;bottom:16px;z-index:2147483000;width:min(320px,60vw);overflow:hidden}
.mz-float video,.mz-float img{display:block;width:100%;aspect-ratio:16/9;object-fit:cover;background:#000}
.mz-float a{display:block;padding:8px 12px}
.mz-close{position:absolute;top:6px;right:6px;width:28px;height:28px;border:0;border-radius:50%;background:rgba(0,0,0,.6);color:#fff;font:16px/28px sans-serif;cursor:pointer}
.mz-why{flex:none;align-self:center;box-sizing:border-box;width:24px;height:24px;margin-left:2px;padding:0;border:4px solid transparent;border-radius:50%;background:none;box-shadow:inset 0 0 0 1px;color:var(--mz-muted,#6b7280);font:600 11px/14px serif;cursor:pointer}
.mz-inline .mz-why{width:18px;height:18px;border-width:1px}
.mz-card .mz-why,.mz-float .mz-why{position:absolute;top:4px;right:4px;margin:0}
.mz-float .mz-why{top:6px;right:40px;width:28px;height:28px;border:0;box-shadow:none;background:rgba(0,0,0,.6);color:#fff;font-size:14px}
.mz-panel{z-index:2147483001;width:min(320px,calc(100vw - 16px));box-sizing:border-box;padding:12px 14px;white-space:normal;text-align:left;font:14px/1.4 var(--mz-font,sans-serif);color:var(--mz-fg,#111827)}
.mz-panel p{margin:0 0 8px}
.mz-head{font-weight:600}
.mz-row{display:flex;gap:8px;justify-content:flex-end}
.mz-button{font:inherit;padding:6px 12px;border:1px solid var(--mz-border,#e5e7eb);border-radius:6px;background:none;color:inherit;cursor:pointer}
.mz-row .mz-button:first-child{background:var(--mz-accent,#2563eb);border-color:transparent;color:#fff}
.mz-note{color:var(--mz-muted,#6b7280);font-size:.85em}
`;

/** Adds the stylesheet to the document, unless it has it. */
export function injectStyles(doc: Document): void {
  if (doc.querySelector('style[data-monetize]')) return;
  const style = doc.createElement('style');
  style.setAttribute('data-monetize', '');
  style.textContent = CSS;
  doc.head.appendChild(style);
}

/** The room a slot keeps for an ad of this format (a floating video takes none), from now on. */
export function reserve(slot: HTMLElement, format: Format | undefined): void {
  injectStyles(slot.ownerDocument);
  if (format && format !== 'floating_video') slot.classList.add(`mz-slot-${format}`);
}
