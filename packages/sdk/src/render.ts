import { injectStyles } from './styles';
import type { Ad } from './types';
import { el, whyButton } from './why';

/**
 * Draws an ad into its slot, in its format's markup. Every text of the ad goes in as text, never
 * as markup. Each ad is marked "Sponsored" before anything else a screen reader reads, is one link
 * (to its click URL, in a new tab) that the keyboard reaches, and names its advertiser. Each has
 * a "Why this ad?" control (why.ts) outside its link.
 */

export interface Drawn {
  /** The ad's outermost element: the one whose viewability counts. */
  root: HTMLElement;
  link: HTMLAnchorElement;
  video: HTMLVideoElement | null;
}

function link(doc: Document, ad: Ad): HTMLAnchorElement {
  const a = el(doc, 'a');
  a.href = ad.click_url;
  a.target = '_blank';
  // `sponsored`: a paid link (search engines); `noopener`: the advertiser's page cannot reach ours.
  a.rel = 'sponsored noopener';
  return a;
}

/** Draws `ad` into `slot` (replacing what it held); `onDismiss` for the floating video's close button, `onWhy` for its "Why this ad?". */
export function drawAd(slot: HTMLElement, ad: Ad, onDismiss: () => void, onWhy: (button: HTMLButtonElement) => void): Drawn {
  const doc = slot.ownerDocument;
  injectStyles(doc);
  const { headline, body, cta, advertiser, label, image_url, video_url } = ad.ad;
  const a = link(doc, ad);
  let root: HTMLElement;
  let video: HTMLVideoElement | null = null;
  const why = whyButton(doc, onWhy);

  if (ad.format === 'inline_text' || ad.format === 'sponsored_follow_up') {
    // Inline text: one line; on a narrow screen the headline (the link) gives way, with an
    // ellipsis inside the link itself, so the link is never cut off and the label and the
    // advertiser always show. A follow-up: one row under an answer, its suggested question a chip
    // to click, which wraps to a second line on a narrow screen rather than be cut (styles.ts).
    root = el(doc, 'span', ad.format === 'inline_text' ? 'mz-ad mz-inline' : 'mz-ad mz-follow');
    a.append(headline);
    root.append(el(doc, 'span', 'mz-label', label), a, el(doc, 'span', 'mz-by', ` · ${advertiser}`), why);
  } else if (ad.format === 'tooltip') {
    root = el(doc, 'div', 'mz-ad mz-tooltip');
    root.setAttribute('role', 'note');
    root.setAttribute('aria-label', `${label}: ${advertiser}`);
    a.append(`${headline} `, el(doc, 'span', 'mz-cta', cta));
    root.append(el(doc, 'span', 'mz-label', label), a, why);
  } else if (ad.format === 'sponsored_card') {
    root = el(doc, 'aside', 'mz-ad mz-card');
    root.setAttribute('aria-label', `${label}: ${advertiser}`);
    if (image_url) {
      const img = el(doc, 'img');
      img.src = image_url;
      img.alt = '';
      // 96 px wide, as high as its aspect ratio makes it (within the card): drawn whole (styles.ts).
      img.width = 96;
      a.append(img);
    }
    const text = el(doc, 'span', 'mz-text');
    text.append(
      el(doc, 'span', 'mz-label', `${label} · ${advertiser}`),
      el(doc, 'span', 'mz-title', headline),
      el(doc, 'span', 'mz-body', body),
      el(doc, 'span', 'mz-cta', cta),
    );
    a.append(text);
    root.append(a, why);
  } else {
    root = el(doc, 'aside', 'mz-ad mz-float');
    root.setAttribute('aria-label', `${label} video: ${advertiser}`);
    if (video_url) {
      video = el(doc, 'video');
      video.muted = true;
      video.defaultMuted = true;
      video.autoplay = true;
      video.loop = true;
      video.playsInline = true;
      video.setAttribute('playsinline', '');
      video.preload = 'auto';
      if (image_url) video.poster = image_url;
      video.src = video_url;
      root.append(video);
    } else if (image_url) {
      const img = el(doc, 'img');
      img.src = image_url;
      img.alt = '';
      root.append(img);
    }
    a.append(el(doc, 'span', 'mz-label', label), ` ${headline} · `, el(doc, 'span', 'mz-cta', cta));
    const close = el(doc, 'button', 'mz-close', '×');
    close.type = 'button';
    close.setAttribute('aria-label', 'Close ad');
    close.addEventListener('click', onDismiss);
    root.append(a, why, close);
  }

  slot.replaceChildren(root);
  return { root, link: a, video };
}
