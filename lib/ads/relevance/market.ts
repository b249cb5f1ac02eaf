import type { ReadConversation } from './conversation';
import { campaignPhrases, fitFound, PhraseIndex, phrases, type CampaignPhrases } from './score';

/**
 * What an ad request's conversation is read against: every campaign that may run, with its
 * hints and excluded phrases, and every app's excluded topics, all in one PhraseIndex, so that a
 * conversation is read once whatever the number of campaigns. Built from the database's rows
 * (lib/ads/serving/market.ts keeps it while they are unchanged); pure here.
 */

/** A campaign as the market reads it. */
export interface MarketCampaign {
  id: string;
  hints: readonly string[];
  excluded: readonly string[];
}

/** An app's excluded topics: after a conversation that names one, the app shows no ad. */
export interface AppTopics {
  appId: string;
  topics: readonly string[];
}

/** A campaign that fits the conversation at all (relevance above 0). */
export interface Relevant {
  id: string;
  relevance: number;
  matched: string[];
}

export interface MarketReading {
  /** The campaigns that fit at all, most relevant first (ties by id): the database keeps those at or above a placement's `min_relevance`. */
  fits: Relevant[];
  /** The apps that excluded a topic the conversation names. */
  excludingApps: ReadonlySet<string>;
}

export class Market {
  private readonly index = new PhraseIndex();
  private readonly campaigns: { id: string; phrases: CampaignPhrases }[];
  /** Each phrase's campaigns (by position), as a hint or an excluded phrase. */
  private readonly usedBy = new Map<string, number[]>();
  private readonly topicApps = new Map<string, string[]>();

  constructor(campaigns: readonly MarketCampaign[], topics: readonly AppTopics[] = []) {
    this.campaigns = campaigns.map((c) => ({ id: c.id, phrases: campaignPhrases(c.hints, c.excluded) }));
    this.campaigns.forEach((c, i) => {
      for (const p of [...c.phrases.hints, ...c.phrases.excluded]) {
        this.index.add(p.key);
        const users = this.usedBy.get(p.key);
        if (!users) this.usedBy.set(p.key, [i]);
        else if (users[users.length - 1] !== i) users.push(i);
      }
    });
    for (const { appId, topics: list } of topics) {
      for (const p of phrases(list)) {
        this.index.add(p.key);
        const apps = this.topicApps.get(p.key);
        if (!apps) this.topicApps.set(p.key, [appId]);
        else apps.push(appId);
      }
    }
  }

  get size(): number {
    return this.campaigns.length;
  }

  /** The campaigns the conversation fits and the apps that exclude it (MarketReading). */
  read(conversation: ReadConversation): MarketReading {
    const found = this.index.find(conversation);
    const touched = new Set<number>();
    const excludingApps = new Set<string>();
    for (const key of found.keys()) {
      for (const i of this.usedBy.get(key) ?? []) touched.add(i);
      for (const app of this.topicApps.get(key) ?? []) excludingApps.add(app);
    }
    const fits: Relevant[] = [];
    for (const i of touched) {
      const c = this.campaigns[i]!;
      const f = fitFound(found, c.phrases);
      if (f.relevance > 0) fits.push({ id: c.id, relevance: f.relevance, matched: f.matched });
    }
    fits.sort((a, b) => b.relevance - a.relevance || (a.id < b.id ? -1 : 1));
    return { fits, excludingApps };
  }
}
