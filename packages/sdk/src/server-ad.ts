import { isAd } from './client';
import type { Ad } from './types';

/**
 * An ad an app's server fetched and appended to its answer (`appendAd` of `@monetize/server`):
 * its markdown ends with the ad's data in an HTML comment. `findAd` splits the answer's text
 * into the answer and the ad, so the page renders the text without the ad's markdown and shows
 * the ad with `client.show`, which counts it from this browser.
 */

const DATA = '<!-- monetize-ad ';
const LABEL = '\n\n---\n\n**Sponsored**';

/** The answer's text without the ad's markdown, and the ad it carried (null when none, or not readable). */
export function findAd(text: string): { text: string; ad: Ad | null } {
  const at = text.lastIndexOf(DATA);
  const end = text.indexOf(' -->', at);
  if (at < 0 || end < 0) return { text, ad: null };
  const start = text.lastIndexOf(LABEL, at);
  let ad: unknown;
  try {
    const bytes = Uint8Array.from(
      atob(
        text
          .slice(at + DATA.length, end)
          .replace(/-/g, '+')
          .replace(/_/g, '/'),
      ),
      (c) => c.charCodeAt(0),
    );
    ad = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    // Not data of ours.
  }
  // What is not an ad stays in the text, as it came.
  return isAd(ad) ? { text: text.slice(0, start < 0 ? at : start), ad } : { text, ad: null };
}
