import { describe, expect, it } from 'vitest';
import { readConversation, type ContextMessage } from './conversation';
import { decide, DEFAULT_MIN_RELEVANCE } from './decide';
import { Market } from './market';
import { patternCategory, sensitiveCategory } from './safety';
import { campaignPhrases, fit, indexOf, phrases } from './score';
import { phraseKey, plainWords } from './text';

const user = (content: string): ContextMessage => ({ role: 'user', content });
const assistant = (content: string): ContextMessage => ({ role: 'assistant', content });
const read = (...messages: ContextMessage[]) => readConversation(messages);

describe('words and phrases', () => {
  it('reads lower case, without accents, apostrophes joined and possessives dropped', () => {
    expect(plainWords("Crème brûlée? I'm sure the party's BILL won't pass.")).toEqual([
      'creme',
      'brulee',
      'im',
      'sure',
      'the',
      'party',
      'bill',
      'wont',
      'pass',
    ]);
  });

  it('matches a phrase by the stems of its words, in order and next to each other', () => {
    const found = (phrase: string, text: string) =>
      indexOf(phrases([phrase]))
        .find(read(user(text)))
        .has(phrases([phrase])[0]!.key);
    expect(found('meeting notes', 'My meeting notes are a mess')).toBe(true);
    expect(found('meetings note', 'My meeting notes are a mess')).toBe(true);
    expect(found('notes meeting', 'My meeting notes are a mess')).toBe(false);
    expect(found('where to stay', 'where should we stay')).toBe(false);
    expect(found('notes are a mess', 'My meeting notes are a mess')).toBe(true);
    expect(found('a mess', 'My meeting notes are a mess')).toBe(true);
  });

  it('refuses phrases of common words alone, or longer than five words', () => {
    expect(phraseKey('the')).toBeNull();
    expect(phraseKey('what is it')).toBeNull();
    expect(phraseKey('one two three four five six')).toBeNull();
    expect(phraseKey('to-do list')).toBe('to do list');
  });
});

describe('relevance', () => {
  const campaign = campaignPhrases(['meeting notes', 'notes', 'second brain', 'Notes'], ['sticky notes']);

  it('is 1 − Π(1 − strength × weight) over the hints found, each named', () => {
    expect(fit(read(user('where do I keep meeting notes?')), campaign)).toEqual({
      relevance: 0.835, // the phrase (0.7) and the word "notes" (0.45): 1 − 0.3 × 0.55
      matched: ['meeting notes', 'notes'],
      excludedBy: null,
    });
    expect(fit(read(user('my notes are everywhere')), campaign).relevance).toBe(0.45);
    expect(fit(read(user('I want a second brain'), assistant('ok'), user('which one?')), campaign)).toMatchObject({
      relevance: 0.42,
      matched: ['second brain'],
    });
    expect(fit(read(user('how do I remember things?'), assistant('Try a second brain.'), user('which one?')), campaign).relevance).toBe(0.21);
    expect(fit(read(user('what is the capital of Peru?')), campaign)).toEqual({ relevance: 0, matched: [], excludedBy: null });
  });

  it('counts a hint written twice over ("notes", "Notes") once', () => {
    expect(fit(read(user('notes')), campaign).matched).toEqual(['notes']);
  });

  it('is 0 when an excluded phrase is anywhere in the conversation', () => {
    expect(fit(read(user('sticky notes or meeting notes?')), campaign)).toEqual({ relevance: 0, matched: [], excludedBy: 'sticky notes' });
  });
});

describe('safety', () => {
  it.each([
    ['health', 'my knee hurts when I run, should I keep going?'],
    ['health', 'can I take ibuprofen with 500mg of paracetamol'],
    ['mental_health', "honestly I don't see the point of anything anymore"],
    ['mental_health', 'I keep thinking about hurting myself'],
    ['sexual', 'write me some sexting messages'],
    ['politics', 'who should I vote for in the election?'],
    ['minor', "i'm 14 and want new running shoes"],
    ['minor', 'im in 7th grade and need help with my essay'],
  ])('finds %s in "%s"', (category, text) => {
    expect(sensitiveCategory(read(user(text)))).toBe(category);
  });

  it.each([
    'we are on the bleeding edge of web tech',
    'should I take the lump sum or monthly payments for the invoice',
    'how do I purge the cache after a deploy',
    'my 12 year old son wants to learn french',
    'the president of our startup wants better meeting notes',
    'it never hurts to ask for a discount on flights',
    'which running shoes for a half marathon?',
    // Words the categories use in another sense (found by a review of the patterns).
    'how do I reduce my tax bill as a freelancer',
    'should I cut the hedge myself or hire someone',
    'quick meals under 30 minutes for a busy week',
    'is extra virgin olive oil ok for frying',
    'our first time in Japan, where should we stay?',
    'which paint for the bedroom walls',
    'an intimate wedding venue near Lisbon',
    'should I pay down my principal faster',
    'depreciation in year 3 of a laptop',
    'buying a grade 2 listed building',
    'best batteries for hearing aids',
    'how to read A/B test results',
    'is the Lonely Planet guide to Peru good',
    'the support hotline never answers',
    'cheap flights with Virgin Atlantic',
  ])('finds nothing sensitive in "%s"', (text) => {
    expect(sensitiveCategory(read(user(text)))).toBeNull();
  });

  it('reads a number after "I\'m" as an age only when nothing says it is something else', () => {
    expect(patternCategory(read(user("I'm 15 minutes away from finishing the deploy")))).toBeNull();
    expect(patternCategory(read(user("explain it like I'm 5")))).toBeNull();
    expect(patternCategory(read(user("I'm 15 and my mom won't let me")))).toBe('minor');
  });

  it("reads the user's messages, not the assistant's", () => {
    expect(
      sensitiveCategory(read(user('is grain free dog food better?'), assistant('True grain allergies are rare in dogs.'), user('what should I buy?'))),
    ).toBeNull();
    expect(sensitiveCategory(read(user('I have a fever and a cough'), assistant('Rest.'), user('which notes app is best?')))).toBe('health');
  });
});

describe('the market', () => {
  const market = new Market(
    [
      { id: 'c-notes', hints: ['meeting notes', 'notes app'], excluded: [] },
      { id: 'c-travel', hints: ['cheap flights', 'flights'], excluded: ['flight attendant'] },
      { id: 'c-music', hints: ['sheet music'], excluded: [] },
    ],
    [{ appId: 'app-1', topics: ['crypto', 'day trading'] }],
  );

  it('reads a conversation once against every campaign: those that fit at all, best first, with what matched', () => {
    expect(market.read(read(user('best notes app for meeting notes and cheap flights?')))).toEqual({
      fits: [
        { id: 'c-notes', relevance: 0.91, matched: ['meeting notes', 'notes app'] },
        { id: 'c-travel', relevance: 0.835, matched: ['cheap flights', 'flights'] },
      ],
      excludingApps: new Set(),
    });
    expect(market.read(read(user('flights for a flight attendant?'))).fits).toEqual([]);
  });

  it('gives each campaign the figure fit gives it alone', () => {
    const conversation = read(user('cheap flights?'), assistant('Try sheet music.'), user('and a notes app'));
    for (const [id, hints] of [
      ['c-notes', ['meeting notes', 'notes app']],
      ['c-travel', ['cheap flights', 'flights']],
      ['c-music', ['sheet music']],
    ] as const) {
      const alone = fit(conversation, campaignPhrases(hints, id === 'c-travel' ? ['flight attendant'] : []));
      expect(market.read(conversation).fits.find((f) => f.id === id)).toEqual({ id, relevance: alone.relevance, matched: alone.matched });
    }
  });

  it('names the apps whose excluded topics the conversation names', () => {
    expect(market.read(read(user('a notes app for day trading'))).excludingApps).toEqual(new Set(['app-1']));
    expect(market.read(read(user('a notes app for trading days'))).excludingApps).toEqual(new Set());
  });
});

describe('the decision', () => {
  const market = new Market(
    [
      { id: 'c-notes', hints: ['meeting notes', 'notes app'], excluded: [] },
      { id: 'c-travel', hints: ['cheap flights'], excluded: [] },
    ],
    [{ appId: 'app-1', topics: ['crypto'] }],
  );
  const app = { appId: 'app-1', minRelevance: DEFAULT_MIN_RELEVANCE };

  it('answers the campaigns at or above min_relevance, best first, with what matched', () => {
    expect(decide(read(user('best notes app for meeting notes and cheap flights?')), market, app)).toEqual({
      ok: true,
      relevant: [
        { id: 'c-notes', relevance: 0.91, matched: ['meeting notes', 'notes app'] },
        { id: 'c-travel', relevance: 0.7, matched: ['cheap flights'] },
      ],
    });
    expect(decide(read(user('what is a prime number?')), market, app)).toEqual({ ok: false, reason: 'below_relevance' });
    expect(decide(read(user('best notes app?')), market, { ...app, minRelevance: 0.8 })).toEqual({ ok: false, reason: 'below_relevance' });
    expect(decide(read(user('best notes app?')), market, { ...app, minRelevance: 0.7 })).toMatchObject({ ok: true });
  });

  it('says sensitive before anything else, then the app’s excluded topics', () => {
    expect(decide(read(user('I am 13, which notes app?')), market, app)).toEqual({ ok: false, reason: 'sensitive', sensitive: 'minor' });
    expect(decide(read(user('notes app for my crypto trading?')), market, app)).toEqual({ ok: false, reason: 'blocked' });
    expect(decide(read(user('notes app for my crypto trading?')), market, { ...app, appId: 'app-2' })).toMatchObject({ ok: true });
  });
});
