import { describe, expect, it } from 'vitest';
import { checkClientName, displayClientName, isolate, MAX_CLIENT_NAME } from './client-name';

const code = (c: string) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

describe('checkClientName', () => {
  it.each([
    ['plain ASCII', 'Earnings Tool'],
    ['accented Latin', 'Outil de gains Café'],
    ['right-to-left letters (Arabic), which need no control characters', 'أداة الأرباح'],
    ['right-to-left letters (Hebrew) with Latin', 'כלי Earnings'],
    ['CJK', '収益ツール'],
    ['an emoji (a surrogate pair, not a lone surrogate)', 'Rocket 🚀'],
    ['an emoji with a variation selector (a mark, not a format character)', 'Heart ❤️'],
    ['punctuation and symbols', 'Tool (beta) — v2.0 & co. €5'],
    ['a no-break space (visible spacing)', 'Earnings\u00a0Tool'],
  ])('accepts %s', (_, name) => {
    expect(checkClientName(name)).toEqual({ ok: true, name });
  });

  it('trims spaces around the name', () => {
    expect(checkClientName('  Earnings Tool  ')).toEqual({ ok: true, name: 'Earnings Tool' });
  });

  it(`counts characters, not UTF-16 units: ${MAX_CLIENT_NAME} emoji are accepted, one more is not`, () => {
    expect(checkClientName('🚀'.repeat(MAX_CLIENT_NAME))).toMatchObject({ ok: true });
    expect(checkClientName('🚀'.repeat(MAX_CLIENT_NAME + 1))).toMatchObject({ ok: false, reason: expect.stringContaining(`1 to ${MAX_CLIENT_NAME}`) });
  });

  it.each<[string, unknown]>([
    ['missing', undefined],
    ['not a string', 42],
    ['null', null],
    ['empty', ''],
    ['only spaces', '   '],
    ['too long', 'x'.repeat(MAX_CLIENT_NAME + 1)],
  ])('refuses a name that is %s', (_, value) => {
    expect(checkClientName(value)).toEqual({ ok: false, reason: expect.stringContaining('client_name') });
  });

  it.each([
    // Cf: the bidirectional embeddings, overrides and isolates, and the marks.
    ['RIGHT-TO-LEFT OVERRIDE (Cf)', '\u202e'],
    ['LEFT-TO-RIGHT EMBEDDING (Cf)', '\u202a'],
    ['RIGHT-TO-LEFT EMBEDDING (Cf)', '\u202b'],
    ['POP DIRECTIONAL FORMATTING (Cf)', '\u202c'],
    ['LEFT-TO-RIGHT OVERRIDE (Cf)', '\u202d'],
    ['LEFT-TO-RIGHT ISOLATE (Cf)', '\u2066'],
    ['RIGHT-TO-LEFT ISOLATE (Cf)', '\u2067'],
    ['FIRST STRONG ISOLATE (Cf)', '\u2068'],
    ['POP DIRECTIONAL ISOLATE (Cf)', '\u2069'],
    ['ZERO WIDTH SPACE (Cf)', '\u200b'],
    ['ZERO WIDTH NON-JOINER (Cf)', '\u200c'],
    ['ZERO WIDTH JOINER (Cf)', '\u200d'],
    ['LEFT-TO-RIGHT MARK (Cf)', '\u200e'],
    ['RIGHT-TO-LEFT MARK (Cf)', '\u200f'],
    ['ARABIC LETTER MARK (Cf)', '\u061c'],
    ['ZERO WIDTH NO-BREAK SPACE / BOM (Cf)', '\ufeff'],
    ['SOFT HYPHEN (Cf)', '\u00ad'],
    ['a TAG character (Cf, outside the BMP)', '\u{e0041}'],
    // Cc
    ['NUL (Cc)', '\u0000'],
    ['TAB (Cc)', '\t'],
    ['LINE FEED (Cc)', '\n'],
    ['DEL (Cc)', '\u007f'],
    ['NEXT LINE (Cc)', '\u0085'],
    // Zl, Zp
    ['LINE SEPARATOR (Zl)', '\u2028'],
    ['PARAGRAPH SEPARATOR (Zp)', '\u2029'],
    // Co, Cs, Cn
    ['a private-use character (Co)', '\ue000'],
    ['a lone surrogate (Cs)', '\ud800'],
    ['an unassigned code point (Cn)', '\u0378'],
  ])('refuses a name with %s, naming the code point', (_, char) => {
    for (const name of [`Evil${char} Tool`, `${char}Evil Tool`, `Evil Tool${char}`]) {
      const result = checkClientName(name);
      expect(result, JSON.stringify(name)).toEqual({ ok: false, reason: expect.stringContaining(code(char)) });
    }
  });

  it('refuses the spoof of the finding: a heading reversed by U+202E', () => {
    expect(checkClientName('Monetize Official \u202eelgooG')).toMatchObject({ ok: false, reason: expect.stringMatching(/U\+202E.*consent page/) });
  });
});

describe('displayClientName', () => {
  it('leaves an acceptable name alone', () => {
    expect(displayClientName('أداة الأرباح 🚀')).toBe('أداة الأرباح 🚀');
  });

  it('shows each character the rule refuses as U+FFFD, so a name stored before the rule cannot reorder or hide text', () => {
    expect(displayClientName('Evil\u202e\u2066Tool\u200b\ud800')).toBe('Evil\ufffd\ufffdTool\ufffd\ufffd');
  });
});

describe('isolate', () => {
  it('wraps plain text in FIRST STRONG ISOLATE ... POP DIRECTIONAL ISOLATE', () => {
    expect(isolate('Tool')).toBe('\u2068Tool\u2069');
  });
});
