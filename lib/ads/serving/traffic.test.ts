import { describe, expect, it } from 'vitest';
import { isKnownBot } from './traffic';

describe('known bots', () => {
  it('are the user agents that say they are crawlers, previews or monitors', () => {
    for (const ua of [
      'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
      'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)',
      'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)',
      'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)',
      'Mozilla/5.0 (compatible; UptimeRobot/2.0; http://www.uptimerobot.com/)',
    ]) {
      expect(isKnownBot(ua), ua).toBe(true);
    }
  });

  it('are not browsers, phones, HTTP libraries or a missing user agent', () => {
    for (const ua of [
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/120.0.0.0 Safari/537.36',
      'Mozilla/5.0 (Linux; Android 9; CUBOT X19) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Mobile Safari/537.36',
      'curl/8.5.0',
      'node',
      'python-requests/2.31.0',
    ]) {
      expect(isKnownBot(ua), ua).toBe(false);
    }
    expect(isKnownBot(null)).toBe(false);
  });
});
