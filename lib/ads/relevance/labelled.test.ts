import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readConversation, type ContextMessage } from './conversation';
import { decide, DEFAULT_MIN_RELEVANCE, DRAW_RELEVANCE_POWER } from './decide';
import { Market } from './market';
import { SENSITIVE_CATEGORIES, sensitiveCategory, type SensitiveCategory } from './safety';

/**
 * The labelled set (lib/ads/relevance/labelled/): twelve campaigns with their hints, and
 * conversations labelled `sensitive` (with their category), `off_topic` (no campaign fits) or
 * `fitting` (written for a campaign, with any other that would fit too). The conversations were
 * written apart from the hints and the patterns, from the campaigns' descriptions alone.
 *
 * What it measures, at the default min_relevance, with every campaign's budget equal:
 * - every sensitive conversation gets no ad;
 * - at least 95% of the off-topic ones get none;
 * - at least 90% of those written for a campaign get that campaign or another labelled as fitting,
 *   counted as the draw's chance of drawing a fitting one (relevance^DRAW_RELEVANCE_POWER each).
 * README.md and ARCHITECTURE.md quote the figures; the last test keeps them true.
 */

interface Labelled {
  id: string;
  label: 'sensitive' | 'off_topic' | 'fitting';
  category?: SensitiveCategory;
  fits?: string[];
  messages: ContextMessage[];
}
interface LabelledCampaign {
  id: string;
  advertiser: string;
  category: string;
  hints: string[];
  excluded: string[];
}

const here = path.join(process.cwd(), 'lib/ads/relevance/labelled');
const read = (file: string): Labelled[] => JSON.parse(readFileSync(path.join(here, file), 'utf8'));
const conversations = read('conversations.json');
/**
 * Written after the hints and patterns were tuned on the set above. Measured first as it came
 * (ARCHITECTURE.md gives those figures), then the safety patterns were tuned on it too.
 */
const heldOut = read('held-out.json');
/** Written after that, and never tuned on: what unseen conversations get. */
const heldOut2 = read('held-out-2.json');
const NAMES = new Map([
  [conversations, 'labelled'],
  [heldOut, 'held-out'],
  [heldOut2, 'second held-out'],
]);
const campaigns: LabelledCampaign[] = JSON.parse(readFileSync(path.join(here, 'campaigns.json'), 'utf8'));
const market = new Market(campaigns);
const app = { appId: 'labelled', minRelevance: DEFAULT_MIN_RELEVANCE };

const of = (label: Labelled['label'], set = conversations) => set.filter((c) => c.label === label);
const percent = (n: number, d: number) => `${((100 * n) / d).toFixed(1)}%`;

/** The chance that the draw picks a campaign the conversation is labelled to fit (0 when no ad). */
function fittingChance(c: Labelled): number {
  const decision = decide(readConversation(c.messages), market, app);
  if (!decision.ok) return 0;
  const weight = (r: number) => r ** DRAW_RELEVANCE_POWER;
  const total = decision.relevant.reduce((n, r) => n + weight(r.relevance), 0);
  return decision.relevant.filter((r) => c.fits!.includes(r.id)).reduce((n, r) => n + weight(r.relevance), 0) / total;
}

function figures(set = conversations) {
  const sensitive = of('sensitive', set);
  const offTopic = of('off_topic', set);
  const fitting = of('fitting', set);
  const sensitiveBlocked = sensitive.filter((c) => !decide(readConversation(c.messages), market, app).ok).length;
  const sensitiveCaught = sensitive.filter((c) => sensitiveCategory(readConversation(c.messages)) !== null).length;
  const offTopicBlank = offTopic.filter((c) => !decide(readConversation(c.messages), market, app).ok).length;
  const fittingServed = fitting.reduce((n, c) => n + fittingChance(c), 0);
  return {
    sensitive: { n: sensitiveBlocked, of: sensitive.length },
    offTopic: { n: offTopicBlank, of: offTopic.length },
    fitting: { n: fittingServed, of: fitting.length },
    summary:
      `${set.length} ${NAMES.get(set)!} conversations, min_relevance ${DEFAULT_MIN_RELEVANCE}: ` +
      `${sensitiveBlocked} of ${sensitive.length} sensitive (${percent(sensitiveBlocked, sensitive.length)}; the safety check itself caught ${sensitiveCaught}) and ` +
      `${offTopicBlank} of ${offTopic.length} off-topic (${percent(offTopicBlank, offTopic.length)}) get no ad; ` +
      `${percent(fittingServed, fitting.length)} of the ${fitting.length} written for a campaign get a fitting one`,
  };
}

describe('the labelled set', () => {
  it('holds at least 300 conversations, each well formed and within the limits of an ad request', () => {
    expect(conversations.length).toBeGreaterThanOrEqual(300);
    const ids = new Set(conversations.map((c) => c.id));
    expect(ids.size).toBe(conversations.length);
    const campaignIds = new Set(campaigns.map((c) => c.id));
    for (const c of conversations) {
      expect(c.messages.length, c.id).toBeGreaterThanOrEqual(1);
      expect(c.messages.length, c.id).toBeLessThanOrEqual(6);
      expect(
        c.messages.reduce((n, m) => n + m.content.length, 0),
        c.id,
      ).toBeLessThanOrEqual(4000);
      if (c.label === 'sensitive') expect(SENSITIVE_CATEGORIES, c.id).toContain(c.category);
      if (c.label === 'fitting') for (const id of c.fits!) expect(campaignIds, c.id).toContain(id);
    }
    for (const category of SENSITIVE_CATEGORIES) expect(of('sensitive').filter((c) => c.category === category).length).toBeGreaterThanOrEqual(20);
    for (const campaign of campaigns) expect(of('fitting').filter((c) => c.fits![0] === campaign.id).length).toBeGreaterThanOrEqual(8);
  });

  it('every sensitive conversation gets no ad', () => {
    const missed = of('sensitive').filter((c) => sensitiveCategory(readConversation(c.messages)) === null);
    expect(missed.map((c) => c.id)).toEqual([]);
  });

  it('at least 95% of off-topic conversations get no ad at the default min_relevance', () => {
    const { offTopic } = figures();
    expect(offTopic.n / offTopic.of).toBeGreaterThanOrEqual(0.95);
  });

  it('at least 90% of conversations written for a campaign get it or another fitting one', () => {
    const { fitting } = figures();
    expect(fitting.n / fitting.of).toBeGreaterThanOrEqual(0.9);
  });

  it('README.md and ARCHITECTURE.md quote the figures as measured, on the set and on the held-out ones', () => {
    for (const { summary } of [figures(), figures(heldOut), figures(heldOut2)]) {
      for (const doc of ['README.md', 'ARCHITECTURE.md']) expect(readFileSync(path.join(process.cwd(), doc), 'utf8'), doc).toContain(summary);
    }
  });

  it('the held-out sets are well formed and apart from the first', () => {
    expect(heldOut.length).toBeGreaterThanOrEqual(150);
    expect(heldOut2.length).toBeGreaterThanOrEqual(150);
    const ids = new Set(conversations.map((c) => c.id));
    for (const c of [...heldOut, ...heldOut2]) {
      expect(ids.has(c.id), c.id).toBe(false);
      expect(c.messages.length, c.id).toBeLessThanOrEqual(6);
      expect(
        c.messages.reduce((n, m) => n + m.content.length, 0),
        c.id,
      ).toBeLessThanOrEqual(4000);
    }
  });
});
