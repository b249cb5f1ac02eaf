import { createHash } from 'node:crypto';
import { z } from 'zod';
import { hashPassword } from '../identity/auth/password';
import { DATA_TERMS_VERSION } from '../data/buyers/schemas';
import type { Statements } from '../platform/db/roles';
import { sql } from '../platform/db/sql';
import { usdToMicro } from '../platform/kit/micro';
import { mulberry32 } from '../platform/random';
import { newConsentProof, proofHash, storedSubjectId, type SubjectKeys } from '../data/subjects';

/**
 * The demo's consented data and its data buyer (lib/demo/seed.ts calls these), so the catalog has
 * records to count, sample and sell on a fresh install: people of each demo app who agreed to
 * share their AI interactions (and, in two apps, their UX sessions), with records received over
 * the last thirty days, and a demo buyer with a funded balance and one license already bought.
 * Deterministic: the same seed makes the same people and records (their times counted back from
 * the database's clock).
 *
 * The records read as real use: hundreds of different requests per kind of app, their answers
 * made from the same details as the prompt (so a sum is summed, a recipe scaled by its factor),
 * nothing in them the free sample would mask (lib/data/buyers/identifiers.ts), and each record's
 * event a few seconds or minutes before the platform received it, never in the future.
 */

export const DEMO_BUYER_EMAIL = 'buyer@example.com';
export const DEMO_BUYER_FUNDS_USD = 500;

// ── What people asked, and what the apps answered ─────────────────────────────────────────

/** A generator of numbers in [0, 1): mulberry32, so the demo comes out the same every time. */
type Rng = () => number;
/** A prompt and the app's answer to it. */
export type Conversation = [prompt: string, response: string];
/** A kind of request, its slots filled from `rng`; the answer is made from the same slots, so it fits the prompt. */
type Template = (rng: Rng) => Conversation;
export type DemoTopic = 'writing' | 'education' | 'food';

const pick = <T>(rng: Rng, items: readonly T[]): T => items[Math.floor(rng() * items.length)]!;
/** A whole number from `low` to `high`, both included. */
const between = (rng: Rng, low: number, high: number): number => low + Math.floor(rng() * (high - low + 1));
/** `count` different items of `items`, in a random order. */
function pickSome<T>(rng: Rng, items: readonly T[], count: number): T[] {
  const pool = [...items];
  for (let i = 0; i < count; i++) {
    const j = i + Math.floor(rng() * (pool.length - i));
    [pool[i], pool[j]] = [pool[j]!, pool[i]!];
  }
  return pool.slice(0, count);
}
/** `a, b and c`. */
const listed = (items: readonly string[]): string => (items.length < 2 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`);
const capitalised = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);
const NUMBER_WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];
/** `a mystery`, `an adventure`. */
const an = (word: string): string => `${/^[aeiou]/i.test(word) ? 'an' : 'a'} ${word}`;
/** `a 7-year-old`, `an 8-year-old`, `an 11-year-old`. */
const anAge = (age: number): string => `${age === 8 || age === 11 || age === 18 ? 'an' : 'a'} ${age}-year-old`;

// Writing (a fiction writing assistant).

const SETTINGS: [city: string, landmark: string][] = [
  ['Lisbon', 'Alfama'],
  ['Paris', 'Montmartre'],
  ['Edinburgh', 'the Old Town'],
  ['Kyoto', 'Gion'],
  ['Venice', 'Cannaregio'],
  ['Prague', 'Malá Strana'],
  ['Istanbul', 'Balat'],
  ['Buenos Aires', 'San Telmo'],
  ['Cape Town', 'Bo-Kaap'],
  ['Marrakesh', 'the Medina'],
  ['Copenhagen', 'Nyhavn'],
  ['Hanoi', 'the Old Quarter'],
];
const TITLES: Record<string, ((landmark: string) => string)[]> = {
  mystery: [(l) => `The Secret of ${l}`, (l) => `Shadows over ${l}`, (l) => `The Last Key of ${l}`, (l) => `A Stranger in ${l}`],
  romance: [(l) => `A Summer in ${l}`, (l) => `Letters from ${l}`, (l) => `The Lights of ${l}`, (l) => `Meet Me in ${l}`],
  'ghost story': [(l) => `The Quiet Rooms of ${l}`, (l) => `What Walks in ${l}`, (l) => `The Bells of ${l}`, (l) => `Whispers from ${l}`],
  adventure: [(l) => `The Map of ${l}`, (l) => `Race across ${l}`, (l) => `The Lost Compass of ${l}`, (l) => `Beyond ${l}`],
};
const COMPLICATIONS: Record<string, string[]> = {
  mystery: [
    'The key witness changes her story, and the only copy of the letter burns.',
    'The best clue so far turns out to be a clever fake, planted to waste everyone’s time.',
    'A second locked room is found, and it is empty.',
  ],
  romance: [
    'A misunderstood message makes one of them leave town a day early.',
    'An old friend arrives with news that changes everything.',
    'They both apply for the same job, and only one can get it.',
  ],
  'ghost story': [
    'The caretaker who explained everything turns out to have left years ago.',
    'The noises stop, which is worse, because now nobody knows where the ghost is.',
    'The old photograph shows one more person every time someone looks at it.',
  ],
  adventure: [
    'A storm wrecks the boat, and they have to cross the island on foot.',
    'The map they trusted leads to the wrong valley.',
    'Their guide vanishes in the night, taking the only lantern.',
  ],
};
const NAME_KINDS: { ask: string; names: [readonly string[], readonly string[]]; join: (a: string, b: string) => string }[] = [
  {
    ask: 'villages on a fictional coast',
    names: [
      ['Salt', 'Gull', 'Brine', 'Shell', 'Tide', 'Kelp', 'Drift', 'Foam'],
      ['mere', 'haven', 'wick', 'holm', 'cove', 'by'],
    ],
    join: (a, b) => a + b,
  },
  {
    ask: 'towns in a mountain kingdom',
    names: [
      ['Stone', 'Frost', 'High', 'Pine', 'Eagle', 'Snow', 'Iron', 'Cloud'],
      ['fell', 'crag', 'peak', 'ridge', 'hold', 'gate'],
    ],
    join: (a, b) => a + b,
  },
  {
    ask: 'moons for my space opera',
    names: [
      ['Ves', 'Orin', 'Thal', 'Kyr', 'Zeph', 'Nox', 'Lum', 'Cal'],
      ['ara', 'is', 'on', 'ea', 'ix', 'yra'],
    ],
    join: (a, b) => a + b,
  },
  {
    ask: 'inns along a trade road',
    names: [
      ['Gilded', 'Sleeping', 'Merry', 'Crooked', 'Silver', 'Wandering', 'Lucky', 'Patient'],
      ['Goose', 'Lantern', 'Kettle', 'Fox', 'Wheel', 'Badger', 'Compass', 'Pear'],
    ],
    join: (a, b) => `the ${a} ${b}`,
  },
  {
    ask: 'ships for a pirate adventure for children',
    names: [
      ['Salty', 'Rusty', 'Jolly', 'Brave', 'Sneaky', 'Soggy', 'Golden', 'Noisy'],
      ['Biscuit', 'Parrot', 'Barnacle', 'Teacup', 'Pudding', 'Seagull', 'Anchor', 'Sock'],
    ],
    join: (a, b) => `the ${a} ${b}`,
  },
];
const CHARACTERS: [who: string, pronoun: 'she' | 'he' | 'it'][] = [
  ['detective', 'she'],
  ['baker', 'he'],
  ['ship’s captain', 'she'],
  ['librarian', 'he'],
  ['lighthouse keeper', 'she'],
  ['inventor', 'he'],
  ['young wizard', 'she'],
  ['robot butler', 'it'],
  ['dragon', 'she'],
  ['night-train conductor', 'he'],
];
const HABITS: ((p: string) => string)[] = [
  (p) => `${capitalised(p)} folds every receipt into a paper crane while ${p} thinks.`,
  (p) => `${capitalised(p)} hums the same three notes before every hard decision.`,
  (p) => `${capitalised(p)} writes down the weather twice a day in a tiny notebook.`,
  (p) => `${capitalised(p)} counts the steps of every staircase out loud.`,
  (p) => `${capitalised(p)} cannot walk past a crooked picture frame without straightening it.`,
  (p) => `${capitalised(p)} keeps a tin of lemon sweets and offers one to everyone ${p} meets.`,
  (p) => `${capitalised(p)} answers questions with questions whenever ${p} is nervous.`,
  (p) => `${capitalised(p)} collects keys that open nothing.`,
  (p) => `${capitalised(p)} names every houseplant after a famous explorer.`,
  (p) => `${capitalised(p)} taps the table twice before telling the truth, and friends learn to notice.`,
];
const HABIT_WHY = [
  'It gives readers something to watch for when the pressure rises.',
  'Let it slip once at the worst possible moment.',
  'Readers will remember it long after the plot.',
];
/** Verbs as the base form, the present (he, she, it) and the past, with what they act on. */
const ACTIONS: [base: string, present: string, past: string, rest: string][] = [
  ['write', 'writes', 'wrote', 'a letter to the mayor'],
  ['find', 'finds', 'found', 'the key under the doormat'],
  ['sing', 'sings', 'sang', 'a song about the sea'],
  ['carry', 'carries', 'carried', 'the lantern up the hill'],
  ['open', 'opens', 'opened', 'the gate at dawn'],
  ['catch', 'catches', 'caught', 'the last train home'],
  ['build', 'builds', 'built', 'a raft from old barrels'],
  ['read', 'reads', 'read', 'the map by candlelight'],
  ['hide', 'hides', 'hid', 'the coin in a teacup'],
  ['bring', 'brings', 'brought', 'fresh bread to the market'],
  ['draw', 'draws', 'drew', 'a map of the valley'],
  ['leave', 'leaves', 'left', 'the village before sunrise'],
  ['teach', 'teaches', 'taught', 'the parrot a new word'],
  ['keep', 'keeps', 'kept', 'the secret for a whole winter'],
];
const ACTORS = ['The captain', 'The old baker', 'My brother', 'The new teacher', 'Our hero', 'The princess', 'The inventor', 'The shepherd'];
const HEROES = ['lighthouse keeper', 'retired astronaut', 'young beekeeper', 'clockmaker', 'lonely robot', 'school librarian', 'ferry captain', 'night baker'];
const DISCOVERIES: [present: string, past: string][] = [
  ['finds a map in the attic', 'found a map in the attic'],
  ['hears the sea from a locked room', 'heard the sea from a locked room'],
  ['loses the key to the town clock', 'lost the key to the town clock'],
  ['meets a fox that can talk', 'met a fox that could talk'],
  ['wins a ticket to the Moon', 'won a ticket to the Moon'],
  ['sees a second moon rise', 'saw a second moon rise'],
  ['plants a seed that grows overnight', 'planted a seed that grew overnight'],
  ['receives a parcel with no sender', 'received a parcel with no sender'],
];
const FIRST_LINES: ((hero: string, past: string) => string)[] = [
  (h, p) => `On the morning the ${h} ${p}, the whole town was still asleep.`,
  (h, p) => `It was an ordinary Tuesday until the ${h} ${p}.`,
  (h, p) => `Years later, everyone would argue about the day the ${h} ${p}.`,
];
const WORD_SWAPS: [word: string, wanted: string, answer: string][] = [
  ['happy', 'more formal', 'content'],
  ['big', 'more formal', 'substantial'],
  ['walk', 'slower', 'stroll'],
  ['said', 'quieter', 'murmured'],
  ['said', 'louder', 'shouted'],
  ['look', 'longer', 'gaze'],
  ['run', 'faster', 'sprint'],
  ['small', 'more delicate', 'dainty'],
  ['scared', 'stronger', 'terrified'],
  ['tired', 'stronger', 'exhausted'],
  ['cold', 'stronger', 'freezing'],
  ['good', 'stronger', 'excellent'],
  ['eat', 'more hurried', 'gobble'],
  ['laugh', 'quieter', 'chuckle'],
];
const SHORTER_LINES: Conversation[] = [
  ['It was a dark night and the rain would not stop falling.', 'The rain would not stop.'],
  [
    'When I first arrived in the small town by the sea, I did not know that I would end up staying there for ten years.',
    'I came to the seaside town for a week and stayed ten years.',
  ],
  [
    'The old house at the end of the lane had been empty for as long as anyone in the village could remember.',
    'Nobody could remember anyone living in the old house at the end of the lane.',
  ],
  ['She opened the letter very slowly, because she was afraid of what it might say to her.', 'She opened the letter slowly, afraid of what it might say.'],
  ['There was once a dragon who lived on top of the mountain, and he was very, very lonely.', 'The dragon on the mountain was lonely.'],
  [
    'On the first day of the summer holidays, all of the children of the village ran down to the river to swim.',
    'On the first day of summer, the village children raced to the river.',
  ],
  [
    'The train was late again, which was something that happened almost every single morning that winter.',
    'That winter, the train was late almost every morning.',
  ],
  [
    'My grandmother, who was a very clever woman, always said that you should never trust a cat that whistles.',
    'Never trust a cat that whistles, my grandmother said.',
  ],
  [
    'It was the kind of day when absolutely nothing at all seemed to go right, from the very moment I woke up.',
    'Nothing went right that day, from the moment I woke.',
  ],
];
const FORMAL_DIALOGUES: Conversation[] = [
  ['"Are you coming with us?" "I shall be ready in a moment."', '"You coming?" "Give me a sec."'],
  ['"I would like to apologise for my lateness." "It is of no concern."', '"Sorry I’m late." "No worries."'],
  ['"Would you care to join me for dinner?" "I would be delighted."', '"Want to grab dinner?" "I’d love to."'],
  ['"I do not believe that is correct." "Then kindly explain your reasoning."', '"That’s not right." "Go on, then, why?"'],
  ['"It is extremely cold this evening." "Indeed, I regret not bringing a coat."', '"It’s freezing tonight." "Should’ve brought a coat."'],
  [
    '"Might I borrow your bicycle tomorrow?" "Certainly, provided you return it by noon."',
    '"Can I borrow your bike tomorrow?" "Sure, just bring it back by lunch."',
  ],
  ['"I am afraid we have missed the last bus." "Then we shall have to walk."', '"We missed the bus." "Guess we’re walking."'],
];

const WRITING: Template[] = [
  (rng) => {
    const [city, landmark] = pick(rng, SETTINGS);
    const genre = pick(rng, Object.keys(TITLES));
    const [first, second] = pickSome(rng, TITLES[genre]!, 2).map((title) => title(landmark));
    const ask = pick(rng, [`Suggest a title for ${an(genre)} set in ${city}.`, `Title ideas for my ${genre}? It takes place in ${city}.`]);
    return [ask, `Try "${first}". For something quieter: "${second}".`];
  },
  (rng) => {
    const kind = pick(rng, NAME_KINDS);
    const count = between(rng, 3, 5);
    const seconds = pickSome(rng, kind.names[1], count);
    const names = pickSome(rng, kind.names[0], count).map((first, i) => kind.join(first, seconds[i]!));
    const ask = pick(rng, [`Name ${NUMBER_WORDS[count]} ${kind.ask}.`, `Give me ${NUMBER_WORDS[count]} names for ${kind.ask}.`]);
    return [ask, `${capitalised(listed(names))}.`];
  },
  (rng) => {
    const [who, pronoun] = pick(rng, CHARACTERS);
    const object = { she: 'her', he: 'him', it: 'it' }[pronoun];
    const ask = pick(rng, [`Give my ${who} a habit that makes ${object} memorable.`, `What quirk could my ${who} have?`]);
    return [ask, `${pick(rng, HABITS)(pronoun)} ${pick(rng, HABIT_WHY)}`];
  },
  (rng) => {
    const actor = pick(rng, ACTORS);
    const [base, present, past, rest] = pick(rng, ACTIONS);
    const future = rng() < 0.4;
    return [`Rewrite this in the ${future ? 'future' : 'past'} tense: "${actor} ${present} ${rest}."`, `"${actor} ${future ? `will ${base}` : past} ${rest}."`];
  },
  (rng) => {
    const [, , past, rest] = pick(rng, ACTIONS);
    const sentence = `${pick(rng, ACTORS)} ${past} ${rest} ${pick(rng, ['yesterday', 'at last', 'without a word', 'in the end', 'just in time'])}.`;
    const words = sentence.split(/\s+/).length;
    return [`How many words are in this sentence: "${sentence}"`, `${words} words.`];
  },
  (rng) => {
    const [word, wanted, answer] = pick(rng, WORD_SWAPS);
    return [pick(rng, [`Give me a word for "${word}" that sounds ${wanted}.`, `Another word for "${word}", but ${wanted}?`]), `Try "${answer}".`];
  },
  (rng) => {
    const [line, shorter] = pick(rng, SHORTER_LINES);
    return [`${pick(rng, ['Shorten this opening line:', 'Make this first sentence tighter:'])} "${line}"`, shorter];
  },
  (rng) => {
    const hero = pick(rng, HEROES);
    const [present, past] = pick(rng, DISCOVERIES);
    return [`Suggest a first line for a story about a ${hero} who ${present}.`, `"${pick(rng, FIRST_LINES)(hero, past)}"`];
  },
  (rng) => {
    const genre = pick(rng, Object.keys(COMPLICATIONS));
    return [`What could go wrong in chapter ${between(rng, 2, 12)} of my ${genre}?`, pick(rng, COMPLICATIONS[genre]!)];
  },
  (rng) => {
    const [dialogue, relaxed] = pick(rng, FORMAL_DIALOGUES);
    const ask = pick(rng, [
      'Rewrite this dialogue so it sounds less formal:',
      'Make this dialogue sound more casual:',
      'My characters sound stiff. Loosen this up:',
    ]);
    return [`${ask} ${dialogue}`, relaxed];
  },
];

// Education (quizzes for teachers and students).

const QUIZ_TOPICS: Record<string, string[]> = {
  photosynthesis: [
    'What gas do plants take in from the air?',
    'Which part of a plant cell holds the chlorophyll?',
    'What do plants need besides water and carbon dioxide?',
    'Which gas do plants give off?',
    'Why are most leaves green?',
  ],
  'the water cycle': [
    'What makes water evaporate from the sea?',
    'What is it called when water vapour turns back into liquid?',
    'Name two kinds of precipitation.',
    'Where does rainwater go after it lands?',
    'How do plants return water to the air?',
  ],
  volcanoes: [
    'What is magma called once it reaches the surface?',
    'What is the opening at the top of a volcano called?',
    'Name one country with active volcanoes.',
    'Why do many volcanoes form where tectonic plates meet?',
    'What is a dormant volcano?',
  ],
  'the solar system': [
    'Which planet is closest to the Sun?',
    'Which planet is the largest?',
    'What keeps the planets in orbit around the Sun?',
    'Which planet is famous for its rings?',
    'How long does the Earth take to go once around the Sun?',
  ],
  fractions: [
    'Which is bigger, 1/3 or 1/4?',
    'What is 1/2 + 1/4?',
    'Write 3/6 in its simplest form.',
    'How many quarters make a whole?',
    'What fraction of an hour is 15 minutes?',
  ],
  'the Romans': [
    'What was the capital of the Roman Empire?',
    'What language did the Romans speak?',
    'Why did the Romans build long, straight roads?',
    'What was an aqueduct for?',
    'Name one thing the Romans built that still stands today.',
  ],
  magnets: [
    'What are the two ends of a magnet called?',
    'Do two north poles attract or repel each other?',
    'Name a metal that a magnet attracts.',
    'Why does a compass needle point north?',
    'Does a magnet work through paper?',
  ],
  'the human heart': [
    'How many chambers does the human heart have?',
    'What do arteries carry away from the heart?',
    'Why does your heart beat faster when you run?',
    'Where does the blood pick up oxygen?',
    'What is your pulse?',
  ],
};
const CONCEPTS: [concept: string, explanation: string][] = [
  ['the difference between weather and climate', 'Weather is what the sky is doing today; climate is what it usually does in a place over many years.'],
  ['gravity', 'Gravity is the pull every object has on every other object, and the Earth is so big that its pull keeps us on the ground.'],
  ['why the sky is blue', 'Sunlight holds every colour, and the air scatters blue light much more than red, so blue reaches our eyes from all over the sky.'],
  ['what an atom is', 'An atom is the tiniest piece of an element: a centre called the nucleus, with electrons moving around it.'],
  ['how a rainbow forms', 'Raindrops bend sunlight and split it into its colours, and each drop sends one colour back towards your eyes.'],
  ['what a noun is', 'A noun is a word that names a person, place, thing or idea, like "teacher", "river" or "kindness".'],
  [
    'why we have seasons',
    'The Earth is tilted, so for part of the year your half leans towards the Sun and gets more direct sunlight, and for part of it leans away.',
  ],
  ['what a prime number is', 'A prime number has exactly two factors, 1 and itself, like 2, 3, 5, 7 and 11.'],
  ['evaporation', 'Evaporation is liquid water turning into a gas, water vapour, as it warms up.'],
  ['what a food chain is', 'A food chain shows who eats whom: grass is eaten by a rabbit, and the rabbit by a fox.'],
  ['why ice floats', 'Water expands as it freezes, so ice is lighter than the same amount of liquid water and floats on top.'],
  ['what democracy means', 'Democracy means the people choose their leaders and decide on rules by voting.'],
];
const CAPITALS: [country: string, capital: string][] = [
  ['France', 'Paris'],
  ['Japan', 'Tokyo'],
  ['Canada', 'Ottawa'],
  ['Australia', 'Canberra'],
  ['Brazil', 'Brasília'],
  ['Kenya', 'Nairobi'],
  ['Egypt', 'Cairo'],
  ['Norway', 'Oslo'],
  ['Portugal', 'Lisbon'],
  ['Peru', 'Lima'],
  ['Argentina', 'Buenos Aires'],
  ['Italy', 'Rome'],
  ['Spain', 'Madrid'],
  ['Germany', 'Berlin'],
  ['India', 'New Delhi'],
  ['Mexico', 'Mexico City'],
  ['Vietnam', 'Hanoi'],
  ['Ghana', 'Accra'],
  ['New Zealand', 'Wellington'],
  ['Morocco', 'Rabat'],
  ['Turkey', 'Ankara'],
  ['South Korea', 'Seoul'],
  ['Poland', 'Warsaw'],
  ['Chile', 'Santiago'],
  ['Nigeria', 'Abuja'],
];
const CONVERSIONS: [big: string, small: string, factor: number][] = [
  ['metres', 'centimetres', 100],
  ['kilometres', 'metres', 1000],
  ['kilograms', 'grams', 1000],
  ['litres', 'millilitres', 1000],
  ['hours', 'minutes', 60],
  ['minutes', 'seconds', 60],
  ['days', 'hours', 24],
  ['weeks', 'days', 7],
];
const HISTORY: [chapter: string, question: string, year: number][] = [
  ['the French Revolution', 'was the Bastille stormed', 1789],
  ['the Apollo missions', 'did people first walk on the Moon', 1969],
  ['the end of the Cold War', 'did the Berlin Wall fall', 1989],
  ['medieval England', 'was Magna Carta sealed', 1215],
  ['the history of flight', 'did the Wright brothers make their first powered flight', 1903],
  ['the age of exploration', 'did Columbus first cross the Atlantic', 1492],
  ['the first railways', 'did the Liverpool and Manchester Railway open', 1830],
  ['the Titanic', 'did the Titanic sink', 1912],
  ['the Olympic Games', 'were the first modern Olympic Games held in Athens', 1896],
  ['the right to vote', 'did New Zealand give women the vote', 1893],
  ['the space race', 'was Sputnik launched', 1957],
];
const SPELLINGS: [right: string, wrong: string][] = [
  ['necessary', 'neccessary'],
  ['separate', 'seperate'],
  ['definitely', 'definately'],
  ['rhythm', 'rythm'],
  ['accommodate', 'accomodate'],
  ['occurrence', 'occurence'],
  ['calendar', 'calender'],
  ['tomorrow', 'tommorow'],
  ['receive', 'recieve'],
  ['environment', 'enviroment'],
  ['beginning', 'begining'],
  ['government', 'goverment'],
];
const HINTS: Conversation[] = [
  ['At what temperature does water boil at sea level?', 'Think of a kettle: on the Celsius scale it is a nice round number.'],
  ['Why does the Moon seem to change shape?', 'Think about which part of the Moon the Sun lights up, and where we are looking from.'],
  ['What is 9 × 7?', 'Start from 10 × 7 and take one 7 away.'],
  ['Which planet is called the Red Planet?', 'It is the fourth planet from the Sun.'],
  ['What do bees make from nectar?', 'It is sweet, and you might spread it on toast.'],
  ['How many sides does a hexagon have?', 'Picture the cells of a honeycomb and count their sides.'],
  ['What is the largest ocean?', 'It lies between Asia and the Americas.'],
  ['What is the freezing point of water in Celsius?', 'It is where the Celsius scale starts counting.'],
  ['How many legs does a spider have?', 'More than an insect: count the legs of an insect and add two.'],
  ['What is the tallest mountain on Earth?', 'It is in the Himalayas, on the border of Nepal and China.'],
  ['What is half of 3/4?', 'Halving a fraction doubles its bottom number.'],
  ['Which gas do we breathe out?', 'Plants take it in to make their food.'],
  ['What is the longest river in Africa?', 'It flows north, through Egypt, into the Mediterranean.'],
  ['How many minutes are in two and a half hours?', 'Work out two hours first, then add half of sixty.'],
];
const LETTERS = ['A', 'B', 'C', 'D'];
const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

const EDUCATION: Template[] = [
  (rng) => {
    const op = pick(rng, ['×', '+', '−'] as const);
    const a = op === '×' ? between(rng, 2, 12) : between(rng, 12, 99);
    const b = op === '×' ? between(rng, 2, 12) : op === '+' ? between(rng, 12, 99) : between(rng, 2, a - 1);
    const right = op === '×' ? a * b : op === '+' ? a + b : a - b;
    const wrong = rng() < 0.5;
    const claimed = wrong
      ? right +
        pick(
          rng,
          [-10, -2, -1, 1, 2, 10].filter((d) => right + d > 0),
        )
      : right;
    const ask = pick(rng, [`Is this answer right: ${a} ${op} ${b} = ${claimed}?`, `A student wrote ${a} ${op} ${b} = ${claimed}. Is that correct?`]);
    return [ask, wrong ? `Not quite: ${a} ${op} ${b} = ${right}.` : `Yes: ${a} ${op} ${b} = ${right}.`];
  },
  (rng) => {
    const percent = pick(rng, [5, 10, 15, 20, 25, 30, 40, 50, 75]);
    const of = 20 * between(rng, 1, 20);
    return [`What is ${percent}% of ${of}?`, `${(percent * of) / 100}: ${of} × ${percent} ÷ 100.`];
  },
  (rng) => {
    const topic = pick(rng, Object.keys(QUIZ_TOPICS));
    const count = between(rng, 3, 5);
    const age = between(rng, 8, 14);
    const questions = pickSome(rng, QUIZ_TOPICS[topic]!, count).map((q, i) => `${i + 1}. ${q}`);
    return [`Make ${NUMBER_WORDS[count]} questions about ${topic} for ${age}-year-olds.`, questions.join(' ')];
  },
  (rng) => {
    const [concept, explanation] = pick(rng, CONCEPTS);
    const age = between(rng, 7, 13);
    return [pick(rng, [`Explain ${concept} in one sentence for ${anAge(age)}.`, `How would you explain ${concept} to ${anAge(age)}?`]), explanation];
  },
  (rng) => {
    const [country, capital] = pick(rng, CAPITALS);
    if (rng() < 0.3) return [`Quick check for my class: what is the capital of ${country}?`, `${capital}.`];
    const others = pickSome(
      rng,
      CAPITALS.filter(([, c]) => c !== capital),
      2,
    ).map(([, c]) => c);
    const at = between(rng, 0, 2);
    const choices = [...others.slice(0, at), capital, ...others.slice(at)];
    return [
      `Write a multiple-choice question on the capital of ${country}.`,
      `What is the capital of ${country}? ${choices.map((c, i) => `${LETTERS[i]}) ${c}`).join(' ')} (Answer: ${LETTERS[at]}, ${capital})`,
    ];
  },
  (rng) => {
    const [big, small, factor] = pick(rng, CONVERSIONS);
    const amount = pick(rng, [0.5, 1.5, 2, 2.5, 3, 4, 5, 6, 7, 8, 9, 12]);
    const result = Math.round(amount * factor * 100) / 100;
    return [`How many ${small} are in ${amount} ${big}?`, `${result} ${small}: ${amount} × ${factor} = ${result}.`];
  },
  (rng) => {
    let top: number;
    let bottom: number;
    do {
      bottom = between(rng, 4, 24);
      top = between(rng, 2, bottom - 1);
    } while (gcd(top, bottom) === 1);
    const d = gcd(top, bottom);
    return [
      pick(rng, [`Simplify ${top}/${bottom}.`, `Can ${top}/${bottom} be simplified?`]),
      `${top}/${bottom} = ${top / d}/${bottom / d}: divide the top and the bottom by ${d}.`,
    ];
  },
  (rng) => {
    const [chapter, question, year] = pick(rng, HISTORY);
    const offsets = pickSome(rng, [-30, -20, -10, 10, 20, 30], 2);
    const years = [year, ...offsets.map((o) => year + o)].sort((a, b) => a - b);
    const answer = LETTERS[years.indexOf(year)]!;
    return [
      `Turn my chapter on ${chapter} into a quiz question.`,
      `Q: In which year ${question}? ${years.map((y, i) => `${LETTERS[i]}) ${y}`).join(' ')} (Answer: ${answer}, ${year})`,
    ];
  },
  (rng) => {
    const [right, wrong] = pick(rng, SPELLINGS);
    const [first, second] = rng() < 0.5 ? [right, wrong] : [wrong, right];
    return [`Which is spelled correctly: "${first}" or "${second}"?`, `"${right}" is right.`];
  },
  (rng) => {
    const width = between(rng, 2, 20);
    const length = between(rng, 2, 20);
    return rng() < 0.5
      ? [`What is the area of a rectangle ${length} cm by ${width} cm?`, `${length * width} cm²: length × width, ${length} × ${width}.`]
      : [`What is the perimeter of a rectangle ${length} cm by ${width} cm?`, `${2 * (length + width)} cm: add all four sides, 2 × (${length} + ${width}).`];
  },
  (rng) => {
    const [question, hint] = pick(rng, HINTS);
    const ask = pick(rng, [
      'Give me a hint for this question without the answer:',
      'A hint, not the answer, for:',
      'Help me think about this one, but do not tell me:',
    ]);
    return [`${ask} "${question}"`, hint];
  },
];

// Food (a cooking assistant that plans meals from what is in the fridge).

const DISHES: { name: string; items: string[]; answer: string }[] = [
  { name: 'a spinach omelette', items: ['eggs', 'spinach', 'feta'], answer: 'A spinach and feta omelette, ready in ten minutes.' },
  {
    name: 'egg fried rice',
    items: ['rice', 'frozen peas', 'eggs'],
    answer: 'Egg fried rice with peas: fry cold cooked rice hot, push it aside, scramble the eggs, then stir it all together.',
  },
  {
    name: 'tomato pasta',
    items: ['tomatoes', 'pasta', 'basil'],
    answer: 'Pasta with a quick tomato and basil sauce: soften the tomatoes in olive oil while the pasta cooks.',
  },
  {
    name: 'leek and potato soup',
    items: ['potatoes', 'leeks', 'stock'],
    answer: 'Leek and potato soup: soften the leeks, add diced potatoes and stock, simmer for 20 minutes and blend.',
  },
  {
    name: 'a chickpea curry',
    items: ['chickpeas', 'spinach', 'coconut milk'],
    answer: 'A chickpea and spinach curry with coconut milk, served with rice or flatbread.',
  },
  {
    name: 'bean quesadillas',
    items: ['tortillas', 'black beans', 'cheese'],
    answer: 'Black bean quesadillas: mash the beans, add cheese, fold them into the tortillas and toast both sides.',
  },
  { name: 'a mushroom risotto', items: ['mushrooms', 'rice', 'parmesan'], answer: 'A mushroom risotto, finished with parmesan. Risotto rice works best.' },
  { name: 'cheese toasties', items: ['bread', 'cheese', 'tomatoes'], answer: 'Cheese and tomato toasties, with a simple tomato salad on the side.' },
  { name: 'banana porridge', items: ['oats', 'bananas', 'milk'], answer: 'Banana porridge: cook the oats in the milk and slice a banana on top.' },
  {
    name: 'lentil soup',
    items: ['red lentils', 'carrots', 'onions'],
    answer: 'A red lentil and carrot soup: soften the onions, add the carrots, lentils and water, and simmer for 25 minutes.',
  },
  {
    name: 'a lemon chicken tray bake',
    items: ['chicken thighs', 'lemons', 'potatoes'],
    answer:
      'A lemon chicken tray bake: roast the thighs and quartered potatoes with lemon slices at 200 °C for about 45 minutes, until the chicken is cooked through.',
  },
  { name: 'soy salmon', items: ['salmon', 'broccoli', 'soy sauce'], answer: 'Soy-glazed salmon with steamed broccoli, ready in about 20 minutes.' },
  {
    name: 'a courgette frittata',
    items: ['courgettes', 'eggs', 'cheese'],
    answer: 'A courgette frittata: fry the courgettes, pour over beaten eggs with grated cheese, and finish under the grill.',
  },
  {
    name: 'peanut noodles',
    items: ['noodles', 'peanut butter', 'cucumber'],
    answer: 'Cold peanut noodles: toss the noodles in peanut butter loosened with hot water and a dash of soy sauce, with cucumber on top.',
  },
  {
    name: 'an apple crumble',
    items: ['apples', 'flour', 'butter'],
    answer: 'An apple crumble: rub the butter into the flour with a little sugar, scatter it over sliced apples and bake for about 40 minutes.',
  },
];
/** Amounts for four that scale to whole numbers by ½, 1½, 2 and 3. */
const INGREDIENTS: [amount: number, unit: string, one: string, many: string][] = [
  [200, 'g', 'rice', 'rice'],
  [400, 'g', 'pasta', 'pasta'],
  [300, 'g', 'flour', 'flour'],
  [2, '', 'onion', 'onions'],
  [4, '', 'egg', 'eggs'],
  [400, 'ml', 'milk', 'milk'],
  [100, 'g', 'butter', 'butter'],
  [200, 'g', 'red lentils', 'red lentils'],
  [2, '', 'carrot', 'carrots'],
  [400, 'g', 'chopped tomatoes', 'chopped tomatoes'],
  [600, 'ml', 'stock', 'stock'],
  [2, '', 'garlic clove', 'garlic cloves'],
];
const SCALINGS: [from: number, to: number, how: string][] = [
  [2, 4, 'Double everything'],
  [2, 6, 'Triple everything'],
  [4, 6, 'Multiply everything by 1.5'],
  [4, 2, 'Halve everything'],
  [4, 8, 'Double everything'],
  [6, 3, 'Halve everything'],
  [3, 6, 'Double everything'],
  [6, 9, 'Multiply everything by 1.5'],
  [8, 4, 'Halve everything'],
  [4, 12, 'Triple everything'],
];
const amountOf = ([amount, unit, one, many]: (typeof INGREDIENTS)[number], factor: number): string => {
  const n = amount * factor;
  return unit ? `${n} ${unit} ${many}` : `${n} ${n === 1 ? one : many}`;
};
const SUBSTITUTES: [missing: string, instead: string][] = [
  ['buttermilk', 'Milk with a tablespoon of lemon juice per 250 ml, left for five minutes.'],
  ['eggs in a cake', 'For each egg, a tablespoon of ground flaxseed stirred into three tablespoons of water and left for ten minutes, or 60 g of apple sauce.'],
  ['baking powder', 'For each teaspoon, a quarter teaspoon of bicarbonate of soda with half a teaspoon of cream of tartar.'],
  ['self-raising flour', 'Plain flour with about 2 teaspoons of baking powder per 150 g, mixed well.'],
  ['sour cream', 'Plain Greek yoghurt, spoon for spoon; stir it in off the heat so it does not split.'],
  ['fresh herbs', 'Dried herbs, about a third of the amount, added earlier in the cooking.'],
  ['soy sauce', 'Tamari, spoon for spoon, or coconut aminos, which is sweeter and less salty.'],
  ['breadcrumbs', 'Rolled oats or crushed crackers, in the same amount.'],
  ['honey', 'Maple syrup or golden syrup, spoon for spoon.'],
  ['wine in a sauce', 'Stock with a splash of vinegar or lemon juice for the acidity.'],
  ['brown sugar', 'White sugar with a tablespoon of treacle or molasses per 200 g.'],
  ['cornflour for thickening', 'Plain flour, about twice as much, cooked for a couple of minutes so it does not taste raw.'],
];
const DINNERS: Record<string, string[]> = {
  'dinners without meat for this week': [
    'lentil curry',
    'mushroom risotto',
    'chickpea tray bake',
    'vegetable stir-fry with tofu',
    'bean chilli',
    'spinach and ricotta cannelloni',
    'halloumi fajitas',
    'tomato and basil pasta',
    'sweet potato and black bean tacos',
    'vegetable lasagne',
  ],
  'quick dinners for busy weeknights': [
    'egg fried rice with peas',
    'tomato and basil pasta',
    'vegetable stir-fry with tofu',
    'halloumi fajitas',
    'black bean quesadillas',
    'soy-glazed salmon with broccoli',
    'chicken and vegetable noodles',
    'cheese and tomato toasties with soup',
  ],
  'cheap family dinners for the week': [
    'bean chilli',
    'red lentil soup with bread',
    'jacket potatoes with beans',
    'pasta with tomato and tuna',
    'egg fried rice with peas',
    'vegetable curry with rice',
    'chickpea tray bake',
    'sausage and bean casserole',
  ],
};
const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'];
const KEEPING: [food: string, answer: string][] = [
  ['cooked rice', 'Cool it within an hour, keep it in the fridge and eat it within a day; reheat it only once, until piping hot.'],
  ['cooked chicken', 'Up to three days in the fridge, in a covered container.'],
  ['fresh fish', 'One to two days; cook it by then or freeze it.'],
  ['homemade soup', 'Three to four days in the fridge, or about three months in the freezer.'],
  ['an opened block of hard cheese', 'Three to four weeks, wrapped so it does not dry out.'],
  ['raw mince', 'One to two days in the fridge; freeze it if you will not use it by then.'],
  ['hard-boiled eggs', 'Up to a week in the fridge, in their shells.'],
];
/** What people bake, at the heat an American recipe gives for it. */
const BAKES: [bake: string, fahrenheit: number][] = [
  ['banana bread', 350],
  ['brownies', 350],
  ['roast vegetables', 425],
  ['lasagne', 375],
  ['scones', 425],
  ['flapjacks', 350],
  ['fruit cake', 300],
  ['cornbread', 400],
  ['meringues', 250],
  ['pizza', 475],
  ['roast potatoes', 400],
  ['cookies', 375],
];
const YOLKS: [yolk: string, minutes: number][] = [
  ['runny', 6],
  ['jammy', 7],
  ['firm', 10],
];
const weight = (grams: number): string => (grams >= 1000 ? `${grams / 1000} kg` : `${grams} g`);

const FOOD: Template[] = [
  (rng) => {
    const dish = pick(rng, DISHES);
    const items = listed(pickSome(rng, dish.items, dish.items.length));
    const ask = pick(rng, [`I have ${items}. What can I cook?`, `What can I make with ${items}?`, `Only ${items} left at home. Any ideas?`]);
    return [ask, dish.answer];
  },
  (rng) => {
    const [from, to, how] = pick(rng, SCALINGS);
    const chosen = pickSome(rng, INGREDIENTS, 3);
    return [
      `Make this recipe for ${to} people instead of ${from}: ${listed(chosen.map((i) => amountOf(i, 1)))}.`,
      `${how}: ${listed(chosen.map((i) => amountOf(i, to / from)))}.`,
    ];
  },
  (rng) => {
    const tenths = between(rng, 12, 26);
    const minutes = Math.round((4 * tenths + 20) / 5) * 5;
    return [
      pick(rng, [`How long do I roast a ${tenths / 10} kg chicken?`, `Roasting time for a ${tenths / 10} kg chicken?`]),
      `About ${minutes} minutes at 190 °C (20 minutes per 500 g, plus 20), until the thickest part reaches 75 °C and the juices run clear. Rest it for 10 minutes before carving.`,
    ];
  },
  (rng) => {
    const [missing, instead] = pick(rng, SUBSTITUTES);
    return [pick(rng, [`What can I use instead of ${missing}?`, `I have run out of ${missing}. What can I use?`]), instead];
  },
  (rng) => {
    if (rng() < 0.5) {
      const celsius = 10 * between(rng, 14, 24);
      if (rng() < 0.3) return [`What is ${celsius} °C in a fan oven?`, `${celsius - 20} °C: a fan oven cooks hotter, so set it about 20 °C lower.`];
      const fahrenheit = (celsius * 9) / 5 + 32;
      const usual = Math.round(fahrenheit / 25) * 25;
      return [
        pick(rng, [`What is ${celsius} °C in Fahrenheit?`, `My oven only shows Fahrenheit. What is ${celsius} °C?`]),
        fahrenheit === usual ? `${fahrenheit} °F.` : `${fahrenheit} °F; recipes usually round it to ${usual} °F.`,
      ];
    }
    const [bake, fahrenheit] = pick(rng, BAKES);
    const celsius = ((fahrenheit - 32) * 5) / 9;
    return [
      pick(rng, [
        `My recipe for ${bake} says ${fahrenheit} °F. What is that in Celsius?`,
        `The ${bake} recipe says ${fahrenheit} °F, and my oven is in Celsius.`,
      ]),
      `About ${Math.round(celsius)} °C; most recipes would say ${Math.round(celsius / 10) * 10} °C.`,
    ];
  },
  (rng) => {
    const [kind, dinners] = pick(rng, Object.entries(DINNERS));
    const count = between(rng, 3, 5);
    const plan = pickSome(rng, dinners, count).map((d, i) => `${WEEKDAYS[i]}: ${d}.`);
    return [`Plan ${NUMBER_WORDS[count]} ${kind}.`, plan.join(' ')];
  },
  (rng) => {
    const dishes = pickSome(rng, DISHES, 2);
    const items = [...new Set(dishes.flatMap((d) => d.items))].sort();
    return [`Turn these into one shopping list: ${dishes[0]!.name} and ${dishes[1]!.name}.`, `${capitalised(items.join(', '))}.`];
  },
  (rng) => {
    const [food, answer] = pick(rng, KEEPING);
    return [
      pick(rng, [
        `How long does ${food} keep in the fridge?`,
        `How long can I keep ${food} in the fridge?`,
        `${capitalised(food)}: how many days in the fridge?`,
      ]),
      answer,
    ];
  },
  (rng) => {
    const [yolk, minutes] = pick(rng, YOLKS);
    const eggs = between(rng, 1, 6);
    return [
      pick(rng, [
        `How long do I boil ${eggs === 1 ? 'an egg' : `${NUMBER_WORDS[eggs]} eggs`} for a ${yolk} yolk?`,
        `Boiling ${eggs === 1 ? 'one egg' : `${NUMBER_WORDS[eggs]} eggs`} for breakfast, and I like the yolk ${yolk}. How many minutes?`,
      ]),
      `${minutes} minutes for large eggs lowered into water that is already boiling${eggs > 1 ? `, the same for ${NUMBER_WORDS[eggs]} as for one` : ''}; then cool them in cold water.`,
    ];
  },
  (rng) => {
    const people = between(rng, 2, 12);
    return rng() < 0.5
      ? [`How much dry pasta do I need for ${people} people?`, `About ${weight(people * 100)}: 100 g each for a main meal, or 75 g for smaller appetites.`]
      : [`How much rice should I cook for ${people} people?`, `About ${weight(people * 75)} uncooked: 75 g each.`];
  },
];

const TEMPLATES: Record<DemoTopic, Template[]> = { writing: WRITING, education: EDUCATION, food: FOOD };

/** A conversation of `topic`: the kind of request chosen by `choice` (a number in [0, 1)), its details by `rng`. */
export function demoConversation(topic: DemoTopic, choice: number, rng: Rng): Conversation {
  const templates = TEMPLATES[topic];
  return templates[Math.floor(choice * templates.length)]!(rng);
}

/**
 * An app's conversations, one per call, as demoConversation makes them, but a request is rarely
 * asked twice word for word: one said already is drawn again (from `rng`, up to 20 times).
 */
export function demoConversations(topic: DemoTopic, rng: Rng): (choice: number) => Conversation {
  const said = new Set<string>();
  return (choice) => {
    let c = demoConversation(topic, choice, rng);
    for (let tries = 0; tries < 20 && said.has(c.join('\n')); tries++) c = demoConversation(topic, rng(), rng);
    said.add(c.join('\n'));
    return c;
  };
}

const MODELS = ['small-chat-1', 'large-chat-2', 'local-7b'];
/** The screens of each kind of app, as its UX sessions name them. */
const SCREENS: Record<DemoTopic, string[]> = {
  writing: ['home', 'editor', 'outline', 'characters', 'export', 'settings'],
  education: ['home', 'quiz', 'results', 'lessons', 'library', 'settings'],
  food: ['home', 'recipe', 'shopping-list', 'pantry', 'meal-plan', 'settings'],
};

// ── When things happened ───────────────────────────────────────────────────────────────────

const SECOND_MS = 1000;
const MINUTE_MS = 60 * SECOND_MS;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/**
 * When a record was received and when what it records happened, in one place: received `daysAgo`
 * days and `person` hours before `now`, then a minute to an hour earlier (never in the future);
 * an AI interaction happened 2 seconds to 3 minutes before it was received (the SDK sends in
 * batches), and a UX session of `durationSeconds` ended 1 second to 2 minutes before it was
 * received, so its start plus its duration is before the receipt too.
 */
export function demoRecordTimes(now: number, at: { daysAgo: number; person: number; durationSeconds?: number }, rng: Rng): { received: Date; happened: Date } {
  const received = now - at.daysAgo * DAY_MS - at.person * HOUR_MS - MINUTE_MS - Math.floor(rng() * 59 * MINUTE_MS);
  const happened =
    at.durationSeconds === undefined
      ? received - 2 * SECOND_MS - Math.floor(rng() * 178 * SECOND_MS)
      : received - at.durationSeconds * SECOND_MS - SECOND_MS - Math.floor(rng() * 119 * SECOND_MS);
  return { received: new Date(received), happened: new Date(happened) };
}

/** The row of an insert's `returning id` (a uuid, as text). */
const returnedId = z.object({ id: z.string() });

interface SeededApp {
  appId: string;
  userId: string;
  category: readonly string[];
  /** Whether its people also share UX sessions. */
  sessions: boolean;
}

/**
 * The app's consenting people and their records (ids `seed-<n>`), received over the last thirty
 * days. `rng` draws what the records are (how many, which day, which model, the sessions'
 * events), `detail` what was said and the minutes and seconds of each time; both from `seed`.
 * Each record's receipt and event times come from demoRecordTimes, and its received_at is bound
 * as that value.
 */
export async function seedConsentedData(tx: Statements, app: SeededApp, keys: SubjectKeys, seed: number): Promise<void> {
  const rng = mulberry32(seed);
  const detail = mulberry32(seed + 0x5eed);
  // The database's clock, as consented_at and every other seeded time read it.
  const [clock] = await tx.query(sql`select now() as now`, z.object({ now: z.date() }));
  const now = clock!.now.getTime();
  const topic: DemoTopic = app.category.includes('education') ? 'education' : app.category.includes('food') ? 'food' : 'writing';
  const purposes = app.sessions ? ['ai_interactions', 'ux_sessions'] : ['ai_interactions'];
  const conversation = demoConversations(topic, detail);
  let n = 0;
  for (let person = 0; person < 10; person++) {
    const subject = storedSubjectId(keys, app.appId, createHash('sha256').update(`demo-subject-${app.appId}-${person}`).digest('hex'));
    await tx.query(sql`insert into public.data_subjects (app_id, subject_hash, proof_hash) values (${app.appId}, ${subject}, ${proofHash(newConsentProof())})`);
    const [consent] = await tx.query(
      sql`insert into public.data_consents (app_id, user_id, subject_hash, purposes, policy_version, consented_at)
          values (${app.appId}, ${app.userId}, ${subject}, ${purposes}::text[], '2026-09', now() - interval '31 days') returning id`,
      returnedId,
    );
    const records: { kind: string; id: string; payload: object; received: Date }[] = [];
    const interactions = 4 + Math.floor(rng() * 5);
    for (let i = 0; i < interactions; i++) {
      const [prompt, response] = conversation(rng());
      const { received, happened } = demoRecordTimes(now, { daysAgo: Math.floor(rng() * 30), person }, detail);
      const payload = { prompt, response, model: MODELS[Math.floor(rng() * MODELS.length)]!, occurred_at: happened.toISOString() };
      records.push({ kind: 'ai_interaction', id: `seed-${++n}`, payload, received });
    }
    if (app.sessions) {
      for (let i = 0; i < 2; i++) {
        const daysAgo = Math.floor(rng() * 30);
        // In tenths of a second, so the times add up without floating-point tails.
        let tenths = 0;
        const events = Array.from({ length: 3 + Math.floor(rng() * 6) }, () => {
          tenths += Math.round(rng() * 200);
          return { t: tenths / 10, type: rng() < 0.6 ? 'view' : 'click', target: `screen#${pick(rng, SCREENS[topic])}` };
        });
        const durationSeconds = Math.ceil(tenths / 10 + 5);
        const { received, happened } = demoRecordTimes(now, { daysAgo, person, durationSeconds }, detail);
        records.push({
          kind: 'ux_session',
          id: `seed-${++n}`,
          payload: { started_at: happened.toISOString(), duration_seconds: durationSeconds, events },
          received,
        });
      }
    }
    for (const r of records) {
      const json = JSON.stringify(r.payload);
      await tx.query(
        sql`insert into public.data_records (app_id, user_id, consent_id, subject_hash, kind, record_id, payload, bytes, received_at)
            values (${app.appId}, ${app.userId}, ${consent!.id}, ${subject}, ${r.kind}, ${r.id}, ${json}::jsonb, octet_length(${json}::text),
                    ${r.received}::timestamptz)`,
      );
    }
  }
}

/**
 * The demo data buyer: an account with a buyer profile that accepted the terms in force, a paid
 * top-up of DEMO_BUYER_FUNDS_USD, and a standard license of ten UX-session recordings bought as
 * they would buy it (public.data_license_buy, as themselves), so the publishers whose sessions it
 * holds have earned from it and its export is waiting for the server's first run.
 */
export async function seedDemoBuyer(tx: Statements, password: string): Promise<void> {
  const [user] = await tx.query(
    sql`insert into public.users (email, name, company, role, created_at)
        values (${DEMO_BUYER_EMAIL}, 'Nora Buyer', 'Northwind Research', 'Data lead', now() - interval '60 days') returning id`,
    returnedId,
  );
  const userId = user!.id;
  await tx.query(sql`insert into public.user_credentials (user_id, password_hash) values (${userId}, ${await hashPassword(password)})`);
  await tx.query(
    sql`insert into public.buyer_profiles (user_id, company, intended_use, billing_email, country, terms_version)
        values (${userId}, 'Northwind Research', 'Evaluating writing and cooking assistants with real, consented conversations.', ${DEMO_BUYER_EMAIL}, 'US', ${DATA_TERMS_VERSION})`,
  );
  const [topUp] = await tx.query(
    sql`insert into public.top_ups (user_id, amount_micro, rail, invoice_number, requested_at, account_kind)
        values (${userId}, ${usdToMicro(DEMO_BUYER_FUNDS_USD)}, 'manual', 'INV-DEMO-NORTHWIND', now() - interval '20 days', 'buyer') returning id`,
    returnedId,
  );
  await tx.query(sql`select public.top_up_credit(${topUp!.id}::uuid, 'Demo seed: bank transfer received', null)`);
  await tx.query(
    sql`select set_config('request.jwt.claims', ${JSON.stringify({ sub: userId, role: 'authenticated' })}, true), set_config('role', 'authenticated', true)`,
  );
  const [bought] = await tx.query(
    sql`select public.data_license_buy('ux_sessions', '{}', null, null, '{}', 10, false, 500000) as answer`,
    // public.data_license_buy's answer: the license bought, or the code of its refusal.
    z.object({ answer: z.object({ ok: z.boolean(), error: z.string().optional() }) }),
  );
  await tx.query(sql`select set_config('request.jwt.claims', '', true), set_config('role', 'service_role', true)`);
  if (!bought?.answer.ok) throw new Error(`the demo buyer's license was refused: ${bought?.answer.error}`);
}
