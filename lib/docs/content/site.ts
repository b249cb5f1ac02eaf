import type { PricingValues } from '../../money/pricing/defaults';

/**
 * What the site's own chrome says beyond the markdown pages: the docs sidebar's reading order
 * and the home page's figures. Pure, so a test can hold it to the content and the pricing.
 */

/**
 * The docs sidebar, in the order a reader learns: run something first, then integrate, then get
 * paid, then the advertisers' side, then the data buyers', then the account API for third parties, then the rules.
 * Every docs page is in exactly one section (a test checks it against content/docs/).
 */
export const DOCS_SECTIONS: readonly { title: string; paths: readonly string[] }[] = [
  { title: 'Get started', paths: ['/docs/quickstart', '/docs', '/docs/console'] },
  { title: 'Show ads', paths: ['/docs/sdk-integration', '/docs/server-side', '/docs/ad-decision', '/docs/placements', '/docs/ad-formats', '/docs/api-keys'] },
  { title: 'Get paid', paths: ['/docs/payouts', '/docs/data-and-consent'] },
  { title: 'Advertise', paths: ['/docs/advertisers', '/docs/conversions'] },
  { title: 'Buy data', paths: ['/docs/data-buyers'] },
  {
    title: 'Account API',
    paths: ['/docs/authentication', '/docs/scopes', '/docs/account-api', '/docs/rest-api', '/docs/batch', '/docs/sandbox'],
  },
  { title: 'Agents', paths: ['/docs/mcp-servers', '/docs/agents', '/docs/search'] },
  { title: 'Reference', paths: ['/docs/errors', '/docs/rate-limits', '/docs/versioning', '/docs/security', '/docs/faq'] },
];

export interface Highlight {
  value: string;
  label: string;
}

const percent = (share: number) => `${Math.round(share * 1000) / 10}%`;
const dollars = (usd: number) => `$${Number.isInteger(usd) ? usd : usd.toFixed(2)}`;

/** The three figures the home page leads with, from the pricing settings in force. */
export function pricingHighlights(values: PricingValues): Highlight[] {
  return [
    { value: percent(values.publisher_ad_revenue_share), label: 'of ad revenue goes to you' },
    { value: percent(values.publisher_data_revenue_share), label: 'of every consented data sale' },
    { value: dollars(values.min_payout_usd), label: 'minimum payout, paid monthly' },
  ];
}

/** A rendered page's HTML without its leading title, for a page whose title the layout draws. */
export function withoutTitle(html: string): string {
  return html.replace(/^\s*<h1\b[^>]*>[\s\S]*?<\/h1>\s*/, '');
}
