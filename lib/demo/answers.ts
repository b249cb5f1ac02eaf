/**
 * The demo chat's canned answers (/demo): the demo is about the ads, not the AI. Quizzes, in
 * turn, for most questions; a fixed answer for a few topics. Pure: the page shows the first one,
 * and the chat's server route (./chat.ts) streams the others.
 */

export const ANSWERS = [
  'Here is a five-question quiz on the water cycle: 1. What drives evaporation? 2. Where does condensation happen? 3. Name two kinds of precipitation. 4. What is runoff? 5. How does water return to the air from plants?',
  'Flashcards for photosynthesis: light reactions happen in the thylakoids; the Calvin cycle fixes carbon in the stroma; oxygen comes from split water molecules.',
  'A warm-up for fractions: add 1/3 and 1/6, then simplify. Next, which is larger, 3/5 or 5/8? Finally, write 0.75 as a fraction.',
  'Three questions about the French Revolution: when did the Estates-General meet, what was the Tennis Court Oath, and why did the monarchy fall in 1792?',
] as const;

/** The demo's opening exchange, before anyone asks anything. */
export const OPENING = {
  question: 'Make me a quiz about the water cycle. I want to learn the basics before my exam.',
  answer: ANSWERS[0],
} as const;

/** The canned answers to questions on a few topics, the first that matches. */
const TOPICS: [RegExp, string][] = [
  [
    /\b(pain|hurts?|aches?|swell|swells|swollen|fever|symptoms?|sick|injur|doctor|medicine|rash|dizzy|cough)/i,
    'I am a quiz helper, not a doctor: for a health worry, please ask a doctor or a pharmacist.',
  ],
  [
    /\bnotes?\b|note-taking/i,
    'Good notes make good quizzes: write a question in the margin beside each idea as you read, then cover the page and answer them. Paste your notes here and I will turn them into a quiz.',
  ],
];

/** The answer to `question`, the `asked`th of the conversation: a topic's, or a quiz in turn. */
export function answerTo(question: string, asked: number): string {
  return TOPICS.find(([topic]) => topic.test(question))?.[1] ?? ANSWERS[asked % ANSWERS.length]!;
}
