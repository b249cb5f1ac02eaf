import { describe, expect, it } from 'vitest';
import { findIdentifiers } from '../data/buyers/identifiers';
import { mulberry32 } from '../platform/random';
import { demoConversation, demoConversations, demoRecordTimes, type Conversation, type DemoTopic } from './data-market';

/**
 * The demo's consented data, without a database (tests/integration/demo-data-records.test.ts
 * reads what the seed wrote): its conversations are many, family-friendly, free of anything the
 * free sample would mask, and their answers fit their prompts; its times are in order.
 */

const TOPICS: DemoTopic[] = ['writing', 'education', 'food'];

/** `count` conversations of `topic`, drawn as the seed draws them. */
function conversations(topic: DemoTopic, seed: number, count: number): Conversation[] {
  const rng = mulberry32(seed);
  const detail = mulberry32(seed + 0x5eed);
  return Array.from({ length: count }, () => demoConversation(topic, rng(), detail));
}

const all = Object.fromEntries(TOPICS.map((t) => [t, Array.from({ length: 40 }, (_, s) => conversations(t, s + 1, 100)).flat()])) as Record<
  DemoTopic,
  Conversation[]
>;

describe("the demo's conversations", () => {
  it('come out the same from the same seed', () => {
    for (const topic of TOPICS) expect(conversations(topic, 7, 50)).toEqual(conversations(topic, 7, 50));
  });

  it('are many per topic: an app’s sixty or so are all different, and thousands drawn hold well over a thousand', () => {
    for (const topic of TOPICS) {
      for (let seed = 1; seed <= 20; seed++) {
        const rng = mulberry32(seed);
        const next = demoConversations(topic, mulberry32(seed + 0x5eed));
        const eighty = Array.from({ length: 80 }, () => next(rng()).join('\n'));
        expect(new Set(eighty).size, `${topic}, seed ${seed}`).toBe(80);
        // Drawn without the second chance, most are different already.
        expect(new Set(conversations(topic, seed, 80).map((c) => c.join('\n'))).size, `${topic}, seed ${seed}`).toBeGreaterThanOrEqual(64);
      }
      expect(new Set(all[topic].map((c) => c.join('\n'))).size, topic).toBeGreaterThan(1000);
      expect(new Set(all[topic].map((c) => c[0])).size, topic).toBeGreaterThan(500);
    }
  });

  it('hold nothing the free sample would mask: no email, phone, number, address or name', () => {
    const flagged: string[] = [];
    for (const topic of TOPICS) {
      for (const [prompt, response] of all[topic]) {
        for (const text of [prompt, response]) if (findIdentifiers(text).length > 0) flagged.push(text);
      }
    }
    expect([...new Set(flagged)]).toEqual([]);
  });

  it('answer what was asked: the sums, conversions, fractions, counts and quiz keys are right', () => {
    const eq = (a: number, b: number) => expect(Math.abs(a - b), `${a} vs ${b}`).toBeLessThan(1e-9);
    const ops: Record<string, (a: number, b: number) => number> = { '×': (a, b) => a * b, '+': (a, b) => a + b, '−': (a, b) => a - b };
    const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
    const seen = new Set<string>();
    for (const [prompt, response] of [...all.education, ...all.food, ...all.writing]) {
      let m: RegExpExecArray | null;
      if ((m = /(\d+) ([×+−]) (\d+) = (\d+)\?/.exec(prompt))) {
        const right = ops[m[2]!]!(Number(m[1]), Number(m[3]));
        expect(response).toBe(Number(m[4]) === right ? `Yes: ${m[1]} ${m[2]} ${m[3]} = ${right}.` : `Not quite: ${m[1]} ${m[2]} ${m[3]} = ${right}.`);
        seen.add(Number(m[4]) === right ? 'sum right' : 'sum wrong');
      } else if ((m = /^What is (\d+)% of (\d+)\?$/.exec(prompt))) {
        eq(Number(response.split(':')[0]), (Number(m[1]) * Number(m[2])) / 100);
        seen.add('percent');
      } else if ((m = /^How many (\w+) are in ([\d.]+) (\w+)\?$/.exec(prompt))) {
        const factors: Record<string, number> = {
          'centimetres metres': 100,
          'metres kilometres': 1000,
          'grams kilograms': 1000,
          'millilitres litres': 1000,
          'minutes hours': 60,
          'seconds minutes': 60,
          'hours days': 24,
          'days weeks': 7,
        };
        eq(Number(response.split(' ')[0]), Number(m[2]) * factors[`${m[1]} ${m[3]}`]!);
        seen.add('units');
      } else if ((m = /^(?:Simplify|Can) (\d+)\/(\d+)/.exec(prompt))) {
        const [top, bottom] = [Number(m[1]), Number(m[2])];
        const d = gcd(top, bottom);
        expect(d).toBeGreaterThan(1);
        expect(response).toBe(`${top}/${bottom} = ${top / d}/${bottom / d}: divide the top and the bottom by ${d}.`);
        seen.add('fraction');
      } else if ((m = /^What is the (area|perimeter) of a rectangle (\d+) cm by (\d+) cm\?$/.exec(prompt))) {
        const [l, w] = [Number(m[2]), Number(m[3])];
        expect(Number(response.split(' ')[0])).toBe(m[1] === 'area' ? l * w : 2 * (l + w));
        seen.add('rectangle');
      } else if ((m = /^(?:What is (\d+) °C in Fahrenheit|My oven only shows Fahrenheit. What is (\d+) °C)\?$/.exec(prompt))) {
        expect(Number(response.split(' ')[0])).toBe((Number(m[1] ?? m[2]) * 9) / 5 + 32);
        seen.add('fahrenheit');
      } else if ((m = /recipe (?:for .* )?says (\d+) °F/.exec(prompt))) {
        expect(Math.abs(Number(/About (\d+)/.exec(response)![1]) - ((Number(m[1]) - 32) * 5) / 9)).toBeLessThanOrEqual(0.5);
        seen.add('celsius');
      } else if ((m = /^How many words are in this sentence: "(.*)"$/.exec(prompt))) {
        expect(response).toBe(`${m[1]!.split(' ').length} words.`);
        seen.add('words');
      } else if ((m = /^Make this recipe for (\d+) people instead of (\d+): (.*)\.$/.exec(prompt))) {
        const factor = Number(m[1]) / Number(m[2]);
        const before = m[3]!.match(/\d+/g)!.map(Number);
        const after = response.match(/\d+(\.\d+)?/g)!.map(Number);
        expect(after.slice(-3), prompt).toEqual(before.map((n) => n * factor));
        seen.add('scaling');
      }
      if ((m = /\(Answer: ([A-D]), (.+)\)$/.exec(response))) {
        expect(response).toContain(`${m[1]}) ${m[2]}`);
        seen.add('quiz key');
      }
    }
    expect([...seen].sort()).toEqual(
      ['celsius', 'fahrenheit', 'fraction', 'percent', 'quiz key', 'rectangle', 'scaling', 'sum right', 'sum wrong', 'units', 'words'].sort(),
    );
  });
});

describe("the demo's record times", () => {
  it('put what happened a few seconds to minutes before it was received, and the receipt in the past', () => {
    const now = Date.UTC(2026, 10, 21, 1, 48, 42, 955);
    const rng = mulberry32(3);
    for (let i = 0; i < 5000; i++) {
      const at = { daysAgo: Math.floor(rng() * 30), person: Math.floor(rng() * 10) };
      const { received, happened } = demoRecordTimes(now, at, rng);
      expect(received.getTime()).toBeLessThanOrEqual(now - 60_000);
      expect(received.getTime()).toBeGreaterThan(now - 31 * 86_400_000);
      const gap = received.getTime() - happened.getTime();
      expect(gap).toBeGreaterThanOrEqual(2_000);
      expect(gap).toBeLessThanOrEqual(180_000);

      const durationSeconds = 5 + Math.floor(rng() * 200);
      const session = demoRecordTimes(now, { ...at, durationSeconds }, rng);
      const after = session.received.getTime() - (session.happened.getTime() + durationSeconds * 1000);
      expect(after).toBeGreaterThanOrEqual(1_000);
      expect(after).toBeLessThanOrEqual(120_000);
    }
  });
});
