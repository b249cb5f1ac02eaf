/**
 * What the console offers to paste into an app for a placement: the browser SDK's script tag,
 * and its React component. The key is left for the publisher to fill in: the console never
 * shows a key in full after the moment it is created.
 */

export const KEY_PLACEHOLDER = 'YOUR_PUBLISHABLE_KEY';

export function scriptSnippet(baseUrl: string, placementId: string): string {
  return [
    `<script src="${baseUrl}/sdk/monetize.js" data-api-key="${KEY_PLACEHOLDER}" async></script>`,
    `<div data-monetize-placement="${placementId}"></div>`,
  ].join('\n');
}

export function reactSnippet(placementId: string): string {
  return [
    `import { MonetizeProvider, Placement } from '@monetize/react';`,
    '',
    `<MonetizeProvider apiKey="${KEY_PLACEHOLDER}">`,
    `  <Placement id="${placementId}" />`,
    '</MonetizeProvider>',
  ].join('\n');
}
