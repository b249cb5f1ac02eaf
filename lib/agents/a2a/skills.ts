import { ask, type Answer, type AskAnswers, type Citation } from '../../docs/ask/answer';
import { passagesOf } from '../../docs/ask/passages';
import { pageByPath } from '../../docs/content/pages';
import { absoluteUrl } from '../../platform/http/responses';
import { pricingFor, type LivePricing } from '../../money/pricing/settings';
import type { PricingBody } from '../../schemas/pricing';

/**
 * The agent's two skills (content/docs/agents.md): `docs` answers from the docs' passages, as /ask
 * does; `pricing` answers with the live pricing values and cites the pricing page. Everything
 * here but `answerFor` is pure.
 */

export const SKILLS = ['docs', 'pricing'] as const;
export type Skill = (typeof SKILLS)[number];

/** Words that make a question one about prices rather than about how the product works. */
const PRICING_WORDS =
  /\b(prices?|pricing|priced|costs?|cpms?|fees?|revenue shares?|how much|minimum payout|min(?:imum)? payment|payout threshold|multiplier|exclusive licen[cs]e)\b/i;

/**
 * The skill a message asks for: the one named in the message's `metadata.skill` when it is one
 * of ours, otherwise `pricing` for a question about prices and `docs` for any other.
 */
export function chooseSkill(question: string, requested?: unknown): Skill {
  if (typeof requested === 'string' && (SKILLS as readonly string[]).includes(requested)) return requested as Skill;
  return PRICING_WORDS.test(question) ? 'pricing' : 'docs';
}

export const PRICING_TOPICS = ['min_payout', 'revenue_shares', 'cpm', 'data'] as const;
export type PricingTopic = (typeof PRICING_TOPICS)[number];

const TOPIC_WORDS: Record<PricingTopic, RegExp> = {
  min_payout: /\b(payouts?|paid out|pay out|threshold|smallest balance)\b/i,
  revenue_shares: /\b(shares?|fees?|split|keeps?|commission|cut|percent(?:age)?|earns?)\b|%/i,
  cpm: /\b(cpms?|advertisers?|impressions?|formats?|floating[_ ]video|tooltips?|sponsored[_ ]cards?|inline[_ ]text|ads?)\b/i,
  data: /\b(data|data-?sets?|rows?|recordings?|bundles?|gb|exclusive|licen[cs]es?|multiplier)\b/i,
};

/** The prices a question is about; all of them when it names none ("What does Monetize cost?"). */
export function pricingTopics(question: string): PricingTopic[] {
  const named = PRICING_TOPICS.filter((t) => TOPIC_WORDS[t].test(question));
  return named.length ? named : [...PRICING_TOPICS];
}

/** The section of the pricing page each topic is on. */
const TOPIC_SECTIONS: Record<PricingTopic, string> = {
  min_payout: 'Minimum payout',
  revenue_shares: 'Revenue shares',
  cpm: 'Advertiser CPM by ad format',
  data: 'Data-set prices',
};

const percent = (fraction: number) => `${Math.round(fraction * 1000) / 10}%`;

/** A pricing value, stated in a sentence (the body carries every field: audience `all`). */
function statement(topic: PricingTopic, p: PricingBody): string {
  switch (topic) {
    case 'min_payout':
      return `The minimum payout is ${p.min_payout_usd} USD: the smallest balance paid out to a publisher; a smaller balance is not paid out for that period.`;
    case 'revenue_shares':
      return `Publishers receive ${percent(p.publisher_ad_revenue_share)} of ad revenue and Monetize keeps ${percent(p.platform_ad_fee)}; publishers receive ${percent(p.publisher_data_revenue_share)} of consented data sales.`;
    case 'cpm': {
      const cpm = p.advertiser_cpm_usd!;
      return `Advertisers pay per 1,000 impressions (CPM): floating_video ${cpm.floating_video} USD, tooltip ${cpm.tooltip} USD, sponsored_card ${cpm.sponsored_card} USD, inline_text ${cpm.inline_text} USD, sponsored_follow_up ${cpm.sponsored_follow_up} USD.`;
    }
    case 'data': {
      const d = p.dataset_prices_usd!;
      return `Consented data sells at ${d.per_ai_interaction_row} USD per AI interaction row, ${d.per_ux_session_recording} USD per UX session recording and ${d.per_gb_bundle} USD per GB bundle; an exclusive license costs ${p.exclusive_license_multiplier} times the listed price.`;
    }
  }
}

/** The pricing page's section on a topic, as a citation quoting what the page says there. */
function pricingCitation(topic: PricingTopic): Citation {
  const section = TOPIC_SECTIONS[topic];
  const page = pageByPath('/pricing');
  const anchor = page?.headings.find((h) => h.text === section)?.id;
  const passages = page ? passagesOf(page).filter((p) => p.section === section) : [];
  const passage = passages.map((p) => p.text.replace(/\s+/g, ' ')).join(' ');
  return {
    title: page?.title ?? 'Pricing',
    section,
    url: absoluteUrl(anchor ? `/pricing#${anchor}` : '/pricing'),
    passage: passage.length > 300 ? `${passage.slice(0, 299).trimEnd()}…` : passage,
  };
}

export interface PricingAnswer extends Answer {
  /** Every pricing value, as `GET /api/v1/pricing` answers them. */
  pricing: PricingBody;
}

/**
 * The answer of the pricing skill: one sentence per topic asked about, each citing its section of
 * the pricing page, then where the docs explain it further (`docs`: citations of /ask's answer).
 */
export function pricingAnswer(question: string, pricing: PricingBody, docs: readonly Citation[] = []): PricingAnswer {
  const topics = pricingTopics(question);
  const citations = topics.map(pricingCitation);
  const sentences = topics.map((t, i) => `${statement(t, pricing)} [${i + 1}]`);
  sentences.push(
    pricing.live
      ? `These are the live values; GET ${absoluteUrl('/api/v1/pricing')} always has the current ones.`
      : 'The live values could not be read just now: these are the published defaults.',
  );
  // One page of the docs on the same question, for how it works beyond the number.
  const further = docs.find((c) => new URL(c.url).pathname.startsWith('/docs/') && !citations.some((p) => p.url === c.url));
  if (further) {
    citations.push(further);
    sentences.push(`More in the docs: ${further.title}${further.section ? `, ${further.section}` : ''}. [${citations.length}]`);
  }
  return { question, found: true, answer: sentences.join(' '), citations, pricing };
}

export type SkillAnswer = (Answer & { skill: 'docs' }) | (PricingAnswer & { skill: 'pricing' });

/** The reply as text: the answer, then its sources, one URL per line. */
export function replyText(answer: Answer): string {
  if (answer.citations.length === 0) return answer.answer;
  const sources = answer.citations.map((c, i) => `[${i + 1}] ${c.title}${c.section ? ` — ${c.section}` : ''}: ${c.url}`);
  return `${answer.answer}\n\nSources:\n${sources.join('\n')}`;
}

/** Answers a question with a skill; the pricing skill reads the live values (or the defaults). */
export async function answerFor(question: string, skill: Skill, pricing: LivePricing, answered: AskAnswers): Promise<SkillAnswer> {
  if (skill === 'pricing') return { skill, ...pricingAnswer(question, pricingFor(await pricing.values(), 'all'), ask(question, answered).citations) };
  return { skill, ...ask(question, answered) };
}
