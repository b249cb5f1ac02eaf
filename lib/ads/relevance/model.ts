import { STOPWORDS, stemmedWords, type StemmedWords } from './text';
import { SENSITIVE_CATEGORIES, type SensitiveCategory } from './safety-categories';

/**
 * The second half of the safety check: a naive Bayes model over the words of the user's messages,
 * trained by `npm run train:safety` (scripts/train-safety.ts) on the conversations in
 * lib/ads/relevance/training/ and kept in lib/ads/relevance/safety-model.json. Where the patterns
 * (./safety.ts) catch a conversation that names its topic, the model weighs every word, so one
 * that only describes it ("the inside of my knee swells after long runs") is caught too.
 *
 * - **Features**: the stems of the words that are not common words, and each pair of
 *   neighbouring words, stemmed ("cut myself", "my period"), each counted once per conversation.
 * - **Classes**: the five sensitive categories and `none`. Each feature's weight in a class is
 *   log((the class's conversations that have it + α) / (all the class's feature counts + α × the
 *   number of features)), a multinomial naive Bayes over features counted once per conversation,
 *   with α = 0.5; a class's score is the sum of its weights of the features found, and the classes
 *   count as equally likely.
 * - **Decision**: a conversation is sensitive when some category's score is above `none`'s by more
 *   than the model's `margin`, chosen when training so that, in cross-validation, at most 10% of
 *   the non-sensitive training conversations are taken for sensitive (its value, and the share of
 *   sensitive ones it keeps, are in the model file).
 *
 * Same words, same answer: the model is a fixed table, read once, and scoring is a sum.
 */

export const MODEL_CLASSES = [...SENSITIVE_CATEGORIES, 'none'] as const;
export type ModelClass = (typeof MODEL_CLASSES)[number];

export const SMOOTHING = 0.5;

/** The model as stored: for each feature, its weight per class when present; each class's total when every feature is absent. */
export interface SafetyModel {
  classes: readonly ModelClass[];
  margin: number;
  /** Each class's score before any feature (the classes count as equally likely: zeros). */
  base: readonly number[];
  /** Each feature's weight in each class (module comment). */
  features: Readonly<Record<string, readonly number[]>>;
  /** What training measured (scripts/train-safety.ts), for the docs. */
  trained: { conversations: number; perClass: Readonly<Record<string, number>>; crossValidation: { recall: number; falseAlarms: number } };
}

/** The features of a conversation's user messages (module comment). */
export function features(userMessages: readonly string[]): Set<string> {
  const out = new Set<string>();
  const memo = new Map<string, string>();
  for (const message of userMessages) addFeatures(out, stemmedWords(message, memo));
  return out;
}

/** Adds one message's features, from its words and their stems, to `out`. */
export function addFeatures(out: Set<string>, { words, stems }: StemmedWords): void {
  words.forEach((w, i) => {
    if (!STOPWORDS.has(w)) out.add(stems[i]!);
    if (i > 0) out.add(`${stems[i - 1]} ${stems[i]}`);
  });
}

/** Each class's score for these features. */
export function scores(model: SafetyModel, found: ReadonlySet<string>): number[] {
  const total = [...model.base];
  for (const feature of found) {
    const weights = model.features[feature];
    if (weights) for (let c = 0; c < total.length; c++) total[c]! += weights[c]!;
  }
  return total;
}

/** The most likely sensitive category and how far it is above `none`. */
export function verdict(model: SafetyModel, found: ReadonlySet<string>): { category: SensitiveCategory; lead: number } {
  return leadOf(model, scores(model, found));
}

/** The most likely sensitive category of these class scores and how far it is above `none`. */
function leadOf(model: SafetyModel, s: readonly number[]): { category: SensitiveCategory; lead: number } {
  const none = s[model.classes.indexOf('none')]!;
  let best = -1;
  model.classes.forEach((c, i) => {
    if (c !== 'none' && (best < 0 || s[i]! > s[best]!)) best = i;
  });
  return { category: model.classes[best] as SensitiveCategory, lead: s[best]! - none };
}

/** The sensitive category the model finds, or null (module comment). */
export function modelCategory(model: SafetyModel, found: ReadonlySet<string>): SensitiveCategory | null {
  const { category, lead } = verdict(model, found);
  return lead > model.margin ? category : null;
}

/**
 * The model laid out to score words as they are read, for the ad decision: the same features
 * (module comment) looked up where they occur, a word pair under its first stem, so that no
 * feature is made as a string and only those the model knows are kept. Each counts once, and
 * they are added in the order `features` would list them, so the sums, and the answer, are
 * those of `modelCategory(model, features(…))` to the last bit (model.test.ts holds the two together).
 */
export class ModelScorer {
  private readonly single = new Map<string, readonly number[]>();
  private readonly pairs = new Map<string, Map<string, readonly number[]>>();

  constructor(private readonly model: SafetyModel) {
    for (const [feature, weights] of Object.entries(model.features)) {
      const space = feature.indexOf(' ');
      if (space < 0) {
        this.single.set(feature, weights);
        continue;
      }
      const first = feature.slice(0, space);
      let seconds = this.pairs.get(first);
      if (!seconds) this.pairs.set(first, (seconds = new Map()));
      seconds.set(feature.slice(space + 1), weights);
    }
  }

  /** The sensitive category the model finds in these messages of the user, or null. */
  category(messages: readonly StemmedWords[]): SensitiveCategory | null {
    const total = [...this.model.base];
    // A feature's weights are its own array: seen once, counted once.
    const counted = new Set<readonly number[]>();
    const add = (weights: readonly number[] | undefined) => {
      if (!weights || counted.has(weights)) return;
      counted.add(weights);
      for (let c = 0; c < total.length; c++) total[c]! += weights[c]!;
    };
    for (const { words, stems } of messages) {
      for (let i = 0; i < words.length; i++) {
        if (!STOPWORDS.has(words[i]!)) add(this.single.get(stems[i]!));
        if (i > 0) add(this.pairs.get(stems[i - 1]!)?.get(stems[i]!));
      }
    }
    const { category, lead } = leadOf(this.model, total);
    return lead > this.model.margin ? category : null;
  }
}

/** A labelled conversation to learn from: its user messages' features and its class. */
export interface Example {
  found: ReadonlySet<string>;
  label: ModelClass;
}

/** A model from examples (module comment), with `margin` set by the caller. */
export function train(examples: readonly Example[], margin = 0): SafetyModel {
  const classes = MODEL_CLASSES;
  const n = classes.map((c) => examples.filter((e) => e.label === c).length);
  const counts = new Map<string, number[]>();
  for (const e of examples) {
    const c = classes.indexOf(e.label);
    for (const f of e.found) {
      let row = counts.get(f);
      if (!row) counts.set(f, (row = classes.map(() => 0)));
      row[c]!++;
    }
  }
  // A feature seen once in all the examples says more about the example than about the class.
  const kept = [...counts].filter(([, row]) => row.reduce((a, b) => a + b, 0) >= 2).sort(([a], [b]) => (a < b ? -1 : 1));
  const totals = classes.map((_, c) => kept.reduce((sum, [, row]) => sum + row[c]!, 0));
  const features: Record<string, number[]> = {};
  for (const [f, row] of kept) features[f] = classes.map((_, c) => round(Math.log((row[c]! + SMOOTHING) / (totals[c]! + SMOOTHING * kept.length))));
  return {
    classes,
    margin,
    // Classes count as equally likely, and a word the model never saw counts in none of them.
    base: classes.map(() => 0),
    features,
    trained: {
      conversations: examples.length,
      perClass: Object.fromEntries(classes.map((c, i) => [c, n[i]!])),
      crossValidation: { recall: 0, falseAlarms: 0 },
    },
  };
}

/** Six decimals: the model file stays small, and the same on every machine. */
const round = (x: number) => Math.round(x * 1e6) / 1e6;
