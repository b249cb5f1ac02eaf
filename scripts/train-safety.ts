/**
 * `npm run train:safety`: trains the safety model (lib/ads/relevance/model.ts) on the
 * conversations in lib/ads/relevance/training/ and writes lib/ads/relevance/safety-model.json, and
 * the words those conversations use at least twice to lib/ads/relevance/vocabulary.json (whose
 * stems the server looks up rather than works out for each conversation).
 * `-- --check` writes nothing and fails when the file is not what training gives (CI runs the
 * same comparison in lib/ads/relevance/model.test.ts).
 *
 * The margin: five-fold cross-validation (each conversation scored by a model trained without its
 * fold) gives every training conversation the lead of its likeliest sensitive category over
 * `none`; the margin is the lowest at which at most 10% of the non-sensitive ones are taken for
 * sensitive, by the patterns or by the model (FALSE_ALARMS_AT_MOST in lib/ads/relevance/training.ts).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { trainedModel, trainedVocabulary } from '../lib/ads/relevance/training';

const target = path.join(process.cwd(), 'lib/ads/relevance/safety-model.json');
const text = `${JSON.stringify(trainedModel(), null, 1)}\n`;
const vocabularyTarget = path.join(process.cwd(), 'lib/ads/relevance/vocabulary.json');
const vocabulary = `${JSON.stringify(trainedVocabulary())}\n`;
if (process.argv.includes('--check')) {
  if (readFileSync(target, 'utf8') !== text || readFileSync(vocabularyTarget, 'utf8') !== vocabulary) {
    console.error('lib/ads/relevance/safety-model.json or vocabulary.json is not what training gives: run npm run train:safety');
    process.exit(1);
  }
  console.log('The safety model and the vocabulary are what training gives.');
} else {
  writeFileSync(target, text);
  writeFileSync(vocabularyTarget, vocabulary);
  const model = JSON.parse(text);
  console.log(
    `Wrote ${path.relative(process.cwd(), target)}: ${Object.keys(model.features).length} features from ${model.trained.conversations} conversations, margin ${model.margin}, cross-validated recall ${model.trained.crossValidation.recall}, false alarms ${model.trained.crossValidation.falseAlarms}`,
  );
}
