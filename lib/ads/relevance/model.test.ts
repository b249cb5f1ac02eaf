import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readConversation, type ContextMessage } from './conversation';
import { features, ModelScorer, modelCategory, train, verdict, type SafetyModel } from './model';
import { FALSE_ALARMS_AT_MOST, trainedModel, trainedVocabulary } from './training';

describe('the safety model', () => {
  it('reads the stems of topic words and of each pair of neighbouring words', () => {
    expect([...features(["I've been cutting myself", 'Knees swelling'])].sort()).toEqual(
      ['been cut', 'cut', 'cut myself', 'iv been', 'knee', 'knee swell', 'swell'].sort(),
    );
  });

  it('learns which class a feature points to, and answers only past its margin', () => {
    const ex = (words: string, label: 'health' | 'none') => ({ found: features([words]), label });
    const examples = [
      ex('my knee swells and aches', 'health'),
      ex('the swelling in my knee is worse', 'health'),
      ex('knee swells after runs', 'health'),
      ex('best pan for steak', 'none'),
      ex('best notes app', 'none'),
      ex('cheap flights to rome', 'none'),
    ];
    const model = train(examples, 0);
    expect(verdict(model, features(['my knee swells'])).category).toBe('health');
    expect(modelCategory(model, features(['my knee swells']))).toBe('health');
    expect(modelCategory(model, features(['best app for steak']))).toBeNull();
    expect(modelCategory({ ...model, margin: 1000 }, features(['my knee swells']))).toBeNull();
  });

  it('answers the same when it scores words as they are read (ModelScorer) as from the features made as strings', () => {
    const model = JSON.parse(readFileSync(path.join(process.cwd(), 'lib/ads/relevance/safety-model.json'), 'utf8')) as SafetyModel;
    const scorer = new ModelScorer(model);
    const dir = (d: string) => path.join(process.cwd(), 'lib/ads/relevance', d);
    const conversations = ['training', 'labelled'].flatMap((d) =>
      readdirSync(dir(d))
        .filter((f) => f.endsWith('.json') && f !== 'campaigns.json')
        .flatMap((f) => JSON.parse(readFileSync(path.join(dir(d), f), 'utf8')) as { messages: ContextMessage[] }[]),
    );
    expect(conversations.length).toBeGreaterThan(1000);
    const answers = conversations.map((c) => ({
      strings: modelCategory(model, features(c.messages.filter((m) => m.role === 'user').map((m) => m.content))),
      scorer: scorer.category(readConversation(c.messages).userWords),
    }));
    expect(answers.filter((a) => a.scorer !== a.strings)).toEqual([]);
    // Not a comparison of nothing: the model finds many of them sensitive, and many not.
    expect(answers.filter((a) => a.scorer !== null).length).toBeGreaterThan(200);
    expect(answers.filter((a) => a.scorer === null).length).toBeGreaterThan(200);
  });

  it('is exactly what training on lib/ads/relevance/training gives (npm run train:safety)', () => {
    const committed = JSON.parse(readFileSync(path.join(process.cwd(), 'lib/ads/relevance/safety-model.json'), 'utf8'));
    expect(committed).toEqual(JSON.parse(JSON.stringify(trainedModel())));
  });

  it('keeps the vocabulary training gives (npm run train:safety)', () => {
    const committed = JSON.parse(readFileSync(path.join(process.cwd(), 'lib/ads/relevance/vocabulary.json'), 'utf8'));
    expect(committed).toEqual(trainedVocabulary());
  });

  it('takes at most the bound of non-sensitive training conversations for sensitive in cross-validation', () => {
    const committed = JSON.parse(readFileSync(path.join(process.cwd(), 'lib/ads/relevance/safety-model.json'), 'utf8'));
    expect(committed.trained.crossValidation.falseAlarms).toBeLessThanOrEqual(FALSE_ALARMS_AT_MOST);
  });
});
