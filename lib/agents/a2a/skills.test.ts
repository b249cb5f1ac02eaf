import { describe, expect, it } from 'vitest';
import { Role, type Message } from '@a2a-js/sdk';
import { env } from '../../platform/env';
import { DEFAULT_PRICING, type PricingValues } from '../../money/pricing/defaults';
import { pricingFor } from '../../money/pricing/settings';
import { agentCard } from './card';
import { questionOf, refusalOf, textPart } from './executor';
import { chooseSkill, pricingAnswer, pricingTopics, replyText } from './skills';

const base = () => env().PUBLIC_BASE_URL;

describe('choosing a skill', () => {
  it.each([
    ['What is the minimum payout?', 'pricing'],
    ['What is the CPM of a tooltip?', 'pricing'],
    ['How much of the ad revenue does a publisher keep?', 'pricing'],
    ['What does an exclusive license cost?', 'pricing'],
    ['How long does an access token last?', 'docs'],
    ['How do I get paid?', 'docs'],
    ['What is the rate limit?', 'docs'],
  ])('"%s" → %s', (question, skill) => {
    expect(chooseSkill(question)).toBe(skill);
  });

  it('takes the skill named in the metadata, and ignores one that is not ours', () => {
    expect(chooseSkill('What is the minimum payout?', 'docs')).toBe('docs');
    expect(chooseSkill('How do tokens work?', 'pricing')).toBe('pricing');
    expect(chooseSkill('How do tokens work?', 'weather')).toBe('docs');
    expect(chooseSkill('How do tokens work?', 42)).toBe('docs');
  });
});

describe('the pricing skill', () => {
  it('answers the topics a question names, or all of them', () => {
    expect(pricingTopics('What is the minimum payout?')).toEqual(['min_payout']);
    expect(pricingTopics('What is the CPM of a tooltip?')).toEqual(['cpm']);
    expect(pricingTopics('What does an exclusive license cost?')).toEqual(['data']);
    expect(pricingTopics('What are your prices?')).toEqual(['min_payout', 'revenue_shares', 'cpm', 'data']);
  });

  it('states the values it is given, cites the sections of the pricing page, and says whether they are live', () => {
    const values: PricingValues = { ...(DEFAULT_PRICING as PricingValues), min_payout_usd: 75 };
    const live = pricingAnswer('What is the minimum payout?', pricingFor(values, 'all'));
    expect(live.answer).toMatch(/^The minimum payout is 75 USD: .* \[1\] These are the live values/);
    expect(live.citations).toEqual([
      { title: 'Pricing', section: 'Minimum payout', url: `${base()}/pricing#minimum-payout`, passage: expect.stringMatching(/Minimum payout: 50 USD/) },
    ]);
    expect(live.pricing.min_payout_usd).toBe(75);

    const fallback = pricingAnswer('How much does a publisher keep?', pricingFor(null, 'all'));
    expect(fallback.answer).toMatch(/Publishers receive 70% of ad revenue and Monetize keeps 30%; publishers receive 80% of consented data sales\. \[1\]/);
    expect(fallback.answer).toMatch(/could not be read just now: these are the published defaults/);
  });

  it('cites a URL per sentence in the text reply', () => {
    const answer = pricingAnswer('What are your prices?', pricingFor(null, 'all'));
    const text = replyText(answer);
    expect(answer.citations).toHaveLength(4);
    for (const [i, c] of answer.citations.entries()) expect(text).toContain(`[${i + 1}] Pricing — ${c.section}: ${c.url}`);
    expect(new Set(answer.citations.map((c) => c.url)).size).toBe(4);
  });

  it('gives an answer without citations as it is', () => {
    expect(replyText({ question: 'q', found: false, answer: 'Not found.', citations: [] })).toBe('Not found.');
  });
});

describe('messages', () => {
  const message = (...texts: string[]): Message => ({
    messageId: 'm',
    contextId: '',
    taskId: '',
    role: Role.ROLE_USER,
    parts: [...texts.map(textPart), { content: { $case: 'data', value: { ignored: true } }, mediaType: 'application/json', filename: '', metadata: undefined }],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  });

  it('take their question from their text parts', () => {
    expect(questionOf(message('  What is the', 'minimum payout?  '))).toBe('What is the\nminimum payout?');
    expect(questionOf(message())).toBe('');
  });

  it('are refused without a question or with one over 500 characters', () => {
    expect(refusalOf('')).toMatch(/1 to 500 characters/);
    expect(refusalOf('x'.repeat(501))).toMatch(/at most 500 characters; it has 501/);
    expect(refusalOf('x'.repeat(500))).toBeNull();
  });
});

describe('the agent card', () => {
  it('names one JSON-RPC v1.0 interface on this service, two skills, and no streaming', () => {
    const card = agentCard();
    expect(card.supportedInterfaces).toEqual([{ url: `${base()}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: '' }]);
    expect(card.skills.map((s) => s.id)).toEqual(['docs', 'pricing']);
    expect(card.capabilities).toMatchObject({ streaming: false, pushNotifications: false });
    expect(card.documentationUrl).toBe(`${base()}/docs/agents`);
  });
});
