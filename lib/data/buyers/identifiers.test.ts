import { describe, expect, it } from 'vitest';
import labelled from './identifiers.labelled.json';
import { findIdentifiers, maskIdentifiers, maskText, type IdentifierSpan } from './identifiers';

/**
 * The recogniser measured on its labelled set: recall (every part labelled `mask` lies wholly
 * within what it finds) and false positives (no part labelled `keep` touches what it finds).
 */

interface Case {
  text: string;
  mask: string[];
  keep: string[];
}

const cases = (labelled as { cases: Case[] }).cases;

/** Where `part` is in `text` (its every occurrence). */
function at(text: string, part: string): { start: number; end: number }[] {
  const out = [];
  for (let i = text.indexOf(part); i >= 0; i = text.indexOf(part, i + 1)) out.push({ start: i, end: i + part.length });
  if (out.length === 0) throw new Error(`labelled set: "${part}" is not in "${text}"`);
  return out;
}

const covered = (spans: IdentifierSpan[], r: { start: number; end: number }) => spans.some((s) => s.start <= r.start && r.end <= s.end);
const touched = (spans: IdentifierSpan[], r: { start: number; end: number }) => spans.some((s) => s.start < r.end && r.start < s.end);

describe('the identifier recogniser on its labelled set', () => {
  const misses: string[] = [];
  const falsePositives: string[] = [];
  let identifiers = 0;
  let kept = 0;
  for (const c of cases) {
    const spans = findIdentifiers(c.text);
    for (const part of c.mask) {
      identifiers++;
      if (!at(c.text, part).every((r) => covered(spans, r))) misses.push(`${part} in "${c.text}" → "${maskText(c.text)}"`);
    }
    for (const part of c.keep) {
      kept++;
      if (at(c.text, part).some((r) => touched(spans, r))) falsePositives.push(`${part} in "${c.text}" → "${maskText(c.text)}"`);
    }
  }

  it('covers every kind the finding named', () => {
    const all = cases.map((c) => c.text).join('\n');
    for (const example of [
      'jane (at) example (dot) com',
      'jane at example dot com',
      '2001:db8',
      '123-45-6789',
      '987654321',
      'AB123456C',
      '4111 1111',
      'DE89',
      'Baker Street',
    ])
      expect(all).toContain(example);
    expect(identifiers).toBeGreaterThanOrEqual(40);
    expect(kept).toBeGreaterThanOrEqual(60);
  });

  it('finds every labelled identifier (recall 100%)', () => {
    expect({ recall: (identifiers - misses.length) / identifiers, misses }).toEqual({ recall: 1, misses: [] });
  });

  it('masks nothing labelled to stay (no false positive)', () => {
    expect({ falsePositiveRate: falsePositives.length / kept, falsePositives }).toEqual({ falsePositiveRate: 0, falsePositives: [] });
  });

  it('masks each identifier by its kind, in every string of a record', () => {
    expect(maskText('Mail jane (at) example (dot) com or 2001:db8::1, SSN 123-45-6789')).toBe('Mail [email] or [ip address], SSN [id]');
    expect(maskIdentifiers({ prompt: ['John Smith, 42 Elm Street'], n: 3 })).toEqual({ prompt: ['[name], [street address]'], n: 3 });
  });
});

describe('timestamps in a free sample', () => {
  it("keeps a record's timestamps and dates as they are, and still masks the identifiers beside them", () => {
    const record = {
      prompt: 'On 2026-11-21 at 2026-11-21 01:48:42 my card 4111 1111 1111 1111 was charged; call 020 7946 0958',
      response: 'Noted for 2026-11-21T01:48:42.955Z.',
      occurred_at: '2026-11-21T01:48:42.955Z',
      started_at: '2026-11-21T01:48:42+01:00',
      events: [{ t: 1.5, at: '2026-11-21T01:48:44.100Z' }],
    };
    expect(maskIdentifiers(record)).toEqual({
      prompt: 'On 2026-11-21 at 2026-11-21 01:48:42 my card [number] was charged; call [number]',
      response: 'Noted for 2026-11-21T01:48:42.955Z.',
      occurred_at: '2026-11-21T01:48:42.955Z',
      started_at: '2026-11-21T01:48:42+01:00',
      events: [{ t: 1.5, at: '2026-11-21T01:48:44.100Z' }],
    });
  });

  it('keeps every instant of two years as JavaScript and PostgreSQL write it, and every day of them', () => {
    const changed: string[] = [];
    for (let t = Date.UTC(2025, 0, 1); t < Date.UTC(2027, 0, 1); t += 3_600_000 + 61_037) {
      const iso = new Date(t).toISOString();
      const pg = `${iso.slice(0, 10)} ${iso.slice(11, 23)}+00`;
      for (const text of [iso, iso.slice(0, 10), pg, `received ${iso}, sent ${pg}`]) if (maskText(text) !== text) changed.push(`${text} → ${maskText(text)}`);
    }
    expect(changed).toEqual([]);
  });

  it('reads a date-shaped run inside a longer number as that number', () => {
    expect(maskText('ref 2026-11-21-4471')).toBe('ref [number]');
    expect(maskText('+2026-11-21')).toBe('[number]');
    expect(maskText('tel 0044 2026-11-21 12')).toBe('tel [number]');
  });
});
