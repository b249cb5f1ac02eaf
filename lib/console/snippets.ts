/**
 * What the console offers to paste into an app for a placement: the SDK surface's calls over
 * HTTP, for apps without the browser SDK (a web page uses the SDK: content/docs/sdk-integration.md,
 * The browser SDK). The key is left for the publisher to fill in: the console never shows a key
 * in full after the moment it is created.
 */

export const KEY_PLACEHOLDER = 'YOUR_PUBLISHABLE_KEY';

/** Getting an ad for the placement. */
export function adRequestSnippet(baseUrl: string, placementId: string): string {
  return [`curl "${baseUrl}/functions/v1/ads?placement_id=${placementId}" \\`, `  -H "x-api-key: ${KEY_PLACEHOLDER}"`].join('\n');
}

/** Sending the ad's impression once it has been viewable, with the token of its answer. */
export function impressionSnippet(baseUrl: string): string {
  return [
    `fetch('${baseUrl}/functions/v1/events', {`,
    `  method: 'POST',`,
    `  headers: { 'content-type': 'application/json', 'x-api-key': '${KEY_PLACEHOLDER}' },`,
    `  body: JSON.stringify({ events: [{ id: crypto.randomUUID(), type: 'impression', token: ad.token,`,
    `    viewability: { visible_share: 0.8, visible_seconds: 1.2 } }] }),`,
    `});`,
  ].join('\n');
}
