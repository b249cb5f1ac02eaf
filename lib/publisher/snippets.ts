import release from './sdk-release.json';

/**
 * What the console offers to paste into an app for a placement, with this server's origin, the
 * placement, its format and the script's Subresource Integrity hash filled in. The key is filled
 * in only at the moment it is created (the console never shows a key in full again: it keeps
 * only its hash); elsewhere the snippet says where it goes.
 *
 * The script tag and the React component are the browser SDK (content/docs/sdk-integration.md),
 * which measures viewability itself. The HTTP calls are for apps without it; they send what the
 * app measured, never figures of ours.
 */

export const KEY_PLACEHOLDER = 'YOUR_PUBLISHABLE_KEY';
/** Where a server key goes in a server's snippet, until it is made. */
export const SERVER_KEY_PLACEHOLDER = 'YOUR_SERVER_KEY';

/** The released script this server serves, with its hash (written by packages/sdk/build.mjs). */
export const SDK_RELEASE: { version: string; path: string; integrity: string } = release;

export interface SnippetInput {
  /** This server's origin, e.g. https://monetize.example. */
  origin: string;
  placementId: string;
  format: string;
  /** The key in full, at the moment it was created; the placeholder otherwise. */
  key?: string;
}

/** The element's id in the page: short, and unique per placement. */
function slotId(placementId: string): string {
  return `monetize-${placementId.replace(/[^a-z0-9]/gi, '').slice(0, 8)}`;
}

/** A string as a JavaScript literal (the values are ours, but the snippet must be right for any). */
const js = (s: string) => JSON.stringify(s);

/**
 * A sponsored follow-up asks its question in the app's chat when its creative says so: the page
 * names the function that does it (`askAssistant` stands for the app's own).
 */
const asks = (format: string) => format === 'sponsored_follow_up';

/** The script tag with its integrity hash, the slot, and the call that fills it. */
export function scriptTagSnippet({ origin, placementId, format, key = KEY_PLACEHOLDER }: SnippetInput): string {
  const id = slotId(placementId);
  return [
    `<div id="${id}"></div>`,
    `<script src="${origin}${SDK_RELEASE.path}" integrity="${SDK_RELEASE.integrity}" crossorigin="anonymous"></script>`,
    `<script>`,
    `  const monetize = Monetize.createClient({ key: ${js(key)}, baseUrl: ${js(origin)} });`,
    asks(format)
      ? `  monetize.render('#${id}', ${js(placementId)}, { format: ${js(format)}, onAsk: (question) => askAssistant(question) });`
      : `  monetize.render('#${id}', ${js(placementId)}, { format: ${js(format)} });`,
    `</script>`,
  ].join('\n');
}

/** The same in React (a client component), with the SDK's package. */
export function reactSnippet({ origin, placementId, format, key = KEY_PLACEHOLDER }: SnippetInput): string {
  return [
    `'use client';`,
    `import { createClient } from '@monetize/sdk';`,
    `import { MonetizeAd } from '@monetize/sdk/react';`,
    ``,
    `const monetize = createClient({ key: ${js(key)}, baseUrl: ${js(origin)} });`,
    ``,
    `export function Ad() {`,
    asks(format)
      ? `  return <MonetizeAd client={monetize} placementId=${js(placementId)} format=${js(format)} onAsk={(question) => askAssistant(question)} fallback="" />;`
      : `  return <MonetizeAd client={monetize} placementId=${js(placementId)} format=${js(format)} fallback="" />;`,
    `}`,
  ].join('\n');
}

/** Getting an ad for the placement over HTTP. */
export function adRequestSnippet(origin: string, placementId: string, key = KEY_PLACEHOLDER): string {
  return [`curl "${origin}/functions/v1/ads?placement_id=${placementId}" \\`, `  -H "x-api-key: ${key}"`].join('\n');
}

/**
 * Getting an ad from the app's server, for one of its users: the server key as a bearer, the
 * conversation, and the user's client as the server received it (content/docs/server-side.md).
 */
export function serverAdSnippet(origin: string, placementId: string, key = SERVER_KEY_PLACEHOLDER): string {
  const body = {
    placement_id: placementId,
    context: { messages: [{ role: 'user', content: 'Which notes app works offline?' }] },
    client: { ip: '203.0.113.7', user_agent: 'Mozilla/5.0 (the user’s browser, as your server received it)' },
  };
  return [
    `curl -X POST "${origin}/functions/v1/ads" \\`,
    `  -H "Authorization: Bearer ${key}" \\`,
    `  -H "content-type: application/json" \\`,
    `  -d '${JSON.stringify(body)}'`,
  ].join('\n');
}

/**
 * Sending the ad's impression over HTTP once it has been viewable, with the token of its answer
 * and what the app measured (`measured`: the lowest share of the ad in view, and for how long).
 */
export function impressionSnippet(origin: string, key = KEY_PLACEHOLDER): string {
  return [
    `// ad: the answer of the ad request; measured: what your app saw while the ad was in view`,
    `fetch('${origin}/functions/v1/events', {`,
    `  method: 'POST',`,
    `  headers: { 'content-type': 'application/json', 'x-api-key': ${js(key)} },`,
    `  body: JSON.stringify({ events: [{ id: crypto.randomUUID(), type: 'impression', token: ad.token,`,
    `    viewability: { visible_share: measured.visibleShare, visible_seconds: measured.visibleSeconds } }] }),`,
    `});`,
  ].join('\n');
}
