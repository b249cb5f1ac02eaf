/**
 * Invalid traffic: what makes an event unbillable before any rule about the ad itself. One
 * place, so every path (events, click redirects) names the same reasons.
 */

/**
 * User agents that say they are robots: crawlers, link previews, audits and monitors. HTTP
 * libraries (curl, python-requests, Node's fetch) are not in the list: a publisher's server may
 * forward its users' events with them. Neither is a browser driven by a test (HeadlessChrome):
 * it renders and scrolls like a person's, and the viewability rule is what it must pass.
 */
const KNOWN_BOTS =
  // `(?<!cu)`: Cubot is a maker of phones, whose models say "CUBOT" in their user agents.
  /(?<!cu)bot\b|bot\/|crawl|spider|slurp|mediapartners|facebookexternalhit|embedly|quora link preview|vkshare|w3c_validator|lighthouse|pingdom|uptimerobot|scrapy/i;

export function isKnownBot(userAgent: string | null): boolean {
  return userAgent !== null && KNOWN_BOTS.test(userAgent);
}
