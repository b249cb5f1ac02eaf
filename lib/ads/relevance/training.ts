import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { readConversation, type ContextMessage } from './conversation';
import { patternCategory } from './safety';
import { features, train, verdict, type Example, type ModelClass, type SafetyModel } from './model';
import type { SensitiveCategory } from './safety-categories';
import { plainWords } from './text';

/**
 * Training the safety model (./model.ts) from lib/ads/relevance/training/*.json: conversations
 * labelled `sensitive` with their category, or `none`. Used by scripts/train-safety.ts and its
 * test, never by the server, which reads the trained file.
 */

interface TrainingConversation {
  id: string;
  label: 'sensitive' | 'none';
  category?: SensitiveCategory;
  messages: ContextMessage[];
}

/**
 * The share of the non-sensitive training conversations (some of them near misses: "pain point",
 * "running a fever" against "running a business") that cross-validation may take for
 * sensitive, the patterns' false alarms included: past it, the model would keep ads from too
 * many ordinary conversations.
 */
export const FALSE_ALARMS_AT_MOST = 0.1;
const FOLDS = 5;

/** The training conversations, every file of `dir` in name order. */
function trainingConversations(dir: string): TrainingConversation[] {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort();
  return files.flatMap((f) => JSON.parse(readFileSync(path.join(dir, f), 'utf8')) as TrainingConversation[]);
}

/**
 * The words the training conversations use at least twice, in order (./vocabulary.json): the
 * server works out their stems once, at start, and looks them up, rather than stemming each word
 * of each conversation anew. Words of the repository's own conversations, never a user's.
 */
export function trainedVocabulary(dir = path.join(process.cwd(), 'lib/ads/relevance/training')): string[] {
  const seen = new Map<string, number>();
  for (const c of trainingConversations(dir)) for (const m of c.messages) for (const w of plainWords(m.content)) seen.set(w, (seen.get(w) ?? 0) + 1);
  return [...seen]
    .filter(([, n]) => n >= 2)
    .map(([w]) => w)
    .sort();
}

export function trainingExamples(dir = path.join(process.cwd(), 'lib/ads/relevance/training')): (Example & { id: string; byPatterns: boolean })[] {
  return trainingConversations(dir)
    .map((c) => ({
      id: c.id,
      found: features(c.messages.filter((m) => m.role === 'user').map((m) => m.content)),
      label: (c.label === 'sensitive' ? c.category! : 'none') as ModelClass,
      byPatterns: patternCategory(readConversation(c.messages)) !== null,
    }))
    .sort((a, b) => (a.id < b.id ? -1 : 1));
}

/** The model trained on every example, with the margin cross-validation chose (module comment of scripts/train-safety.ts). */
export function trainedModel(examples = trainingExamples()): SafetyModel {
  const leads: { sensitive: boolean; byPatterns: boolean; lead: number }[] = [];
  for (let fold = 0; fold < FOLDS; fold++) {
    const model = train(examples.filter((_, i) => i % FOLDS !== fold));
    examples.forEach((e, i) => {
      if (i % FOLDS === fold) leads.push({ sensitive: e.label !== 'none', byPatterns: e.byPatterns, lead: verdict(model, e.found).lead });
    });
  }
  // The patterns catch what they catch whatever the model says. The margin is the lowest (the
  // most sensitive conversations caught) at which the false alarms stay within the bound.
  const sensitive = leads.filter((l) => l.sensitive);
  const none = leads.filter((l) => !l.sensitive);
  const allowed = Math.floor(none.length * FALSE_ALARMS_AT_MOST) - none.filter((l) => l.byPatterns).length;
  if (allowed < 0) throw new Error('The patterns alone take more ordinary training conversations for sensitive than the bound allows: tighten them first.');
  const modelOnly = none
    .filter((l) => !l.byPatterns)
    .map((l) => l.lead)
    .sort((a, b) => b - a);
  // Above the lead of the (allowed + 1)th highest non-sensitive conversation the patterns missed.
  if (modelOnly.length <= allowed) throw new Error('Too few ordinary training conversations to set the margin.');
  const margin = Math.ceil(modelOnly[allowed]! * 1000) / 1000;
  const caught = (l: (typeof leads)[number]) => l.byPatterns || l.lead > margin;
  const model = train(examples, margin);
  model.trained.crossValidation = {
    recall: round3(sensitive.filter(caught).length / sensitive.length),
    falseAlarms: round3(none.filter(caught).length / none.length),
  };
  return model;
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;
