import { describe, expect, it } from 'vitest';
import { literal, Sql, sql, toBound, toLiteral, type SqlValue } from './sql';

/**
 * The `sql` tag (lib/platform/db/sql.ts): what a statement becomes with its values bound (`toBound`) or
 * written as literals (`toLiteral`), the literal forms one by one, fragments, `sql.join`, and the
 * values it refuses. tests/integration/sql-literals.test.ts sends both forms to the engines.
 */

/** A string literal as `literal` must write it: `E'…'` whose body has only `\\`, `''` and other characters. */
const ESCAPE_STRING = /^E'((?:\\\\|''|[^\\'])*)'$/;

/** The text an escape-string literal stands for (PostgreSQL 4.1.2.2, for the two escapes it may hold). */
const unquote = (text: string) => ESCAPE_STRING.exec(text)![1]!.replace(/\\\\|''/g, (pair) => pair[0]!);

describe('toBound', () => {
  it('numbers the values $1, $2… in order and binds them as given', () => {
    const statement = sql`select ${1}, ${'two'}, ${true}, ${null}, ${['a', 'b']}::text[] where x = ${-3.5}`;
    expect(toBound(statement)).toEqual({ text: 'select $1, $2, $3, $4, $5::text[] where x = $6', params: [1, 'two', true, null, ['a', 'b'], -3.5] });
  });

  it('binds a Date as its ISO string, a bigint as its decimal string, undefined as null', () => {
    const at = new Date('2024-02-29T12:34:56.789Z');
    expect(toBound(sql`select ${at}, ${12345678901234567890n}, ${-7n}, ${undefined}`)).toEqual({
      text: 'select $1, $2, $3, $4',
      params: ['2024-02-29T12:34:56.789Z', '12345678901234567890', '-7', null],
    });
  });

  it('leaves a statement without values as it is written', () => {
    expect(toBound(sql`select 1 as "$1", '$2' as x`)).toEqual({ text: `select 1 as "$1", '$2' as x`, params: [] });
  });

  it('never puts a value into the text', () => {
    const hostile = "'; drop table public.users; --";
    const { text, params } = toBound(sql`select * from t where a = ${hostile} and b = ${hostile}`);
    expect(text).toBe('select * from t where a = $1 and b = $2');
    expect(params).toEqual([hostile, hostile]);
  });

  it('numbers past nine without gaps', () => {
    const values = Array.from({ length: 12 }, (_, i) => sql`${i}`);
    const { text, params } = toBound(sql`select ${sql.join(values)}`);
    expect(text).toBe(`select ${Array.from({ length: 12 }, (_, i) => `$${i + 1}`).join(', ')}`);
    expect(params).toEqual(Array.from({ length: 12 }, (_, i) => i));
  });
});

describe('toLiteral and literal', () => {
  it("writes strings as E'…' with ' doubled and \\ doubled, never \\'", () => {
    expect(literal('plain')).toBe("E'plain'");
    expect(literal('')).toBe("E''");
    expect(literal("it's")).toBe("E'it''s'");
    expect(literal('back\\slash')).toBe("E'back\\\\slash'");
    expect(literal("\\'")).toBe("E'\\\\'''");
    expect(literal("'\\")).toBe("E'''\\\\'");
    expect(literal('\\\\')).toBe("E'\\\\\\\\'");
    expect(literal('$$ $tag$ -- ; */ /*')).toBe("E'$$ $tag$ -- ; */ /*'");
    for (const value of ["it's", 'back\\slash', "\\'", "\\''\\", "'; select 1; --", "\\\\''", 'ünïcødé ✓ 𝄞', 'line\nbreak\ttab', "E'x'"]) {
      const written = literal(value);
      expect(written, value).toMatch(ESCAPE_STRING);
      expect(written, value).not.toMatch(/(^|[^\\])(\\\\)*\\'/);
      expect(unquote(written), value).toBe(value);
    }
  });

  it('writes numbers and bigints in parentheses, so a minus sign can never make a comment', () => {
    expect(literal(0)).toBe('(0)');
    expect(literal(42)).toBe('(42)');
    expect(literal(-1)).toBe('(-1)');
    expect(literal(-0.5)).toBe('(-0.5)');
    expect(literal(1e21)).toBe('(1e+21)');
    expect(literal(-5n)).toBe('(-5)');
    expect(literal(12345678901234567890n)).toBe('(12345678901234567890)');
    const text = toLiteral(sql`select 1-${-1}, 2 -${-2}`);
    expect(text).toBe('select 1-(-1), 2 -(-2)');
    expect(text).not.toContain('--');
  });

  it('takes arrays of strings only: numbers, booleans and nulls in an array are refused (the drivers do not bind and read them alike)', () => {
    for (const items of [[1, 2], [true], ['a', null], [1n]] as unknown as string[][]) {
      expect(
        () => sql`select ${items}`,
        JSON.stringify(items, (_, v) => (typeof v === 'bigint' ? `${v}n` : v)),
      ).toThrow(/strings/);
    }
  });

  it('refuses any other object: a plain object, a Buffer, a Map (JSON is written as text: ${JSON.stringify(v)}::jsonb)', () => {
    for (const value of [{ a: 1 }, Buffer.from('x'), new Map()] as unknown as string[]) {
      expect(() => sql`select ${value}`).toThrow(/SQL value/);
    }
  });

  it('knows a fragment as a statement by its mark, not its class (Next bundles this module into several chunks)', () => {
    const fragment = sql`${'x'}`;
    const copy = Object.assign(Object.create(null), { ...fragment, [Symbol.for('monetize.sql-statement')]: true }) as typeof fragment;
    expect(toLiteral(sql`select ${copy}`)).toBe("select E'x'");
  });

  it('refuses NaN and the infinities', () => {
    for (const value of [NaN, Infinity, -Infinity]) {
      expect(() => sql`select ${value}`, String(value)).toThrow(TypeError);
      expect(() => literal(value), String(value)).toThrow(TypeError);
    }
  });

  it('refuses a NUL in a text, as a value or in an array', () => {
    expect(() => sql`select ${'a\0b'}`).toThrow(/NUL/);
    expect(() => literal('\0')).toThrow(/NUL/);
    expect(() => sql`select ${['ok', 'a\0b']}`).toThrow(/NUL/);
  });

  it('refuses an invalid date', () => {
    expect(() => sql`select ${new Date('not a date')}`).toThrow(TypeError);
  });

  it('refuses arrays of anything but strings, numbers, bigints, booleans and nulls', () => {
    const bad = [[['nested']], [{ a: 1 }], [new Date(0)], [undefined], [sql`1`]] as unknown as SqlValue[];
    for (const value of bad) expect(() => sql`select ${value}`, JSON.stringify(value)).toThrow(TypeError);
  });

  it('writes booleans, null and undefined as keywords', () => {
    expect(literal(true)).toBe('true');
    expect(literal(false)).toBe('false');
    expect(literal(null)).toBe('null');
    expect(toLiteral(sql`select ${true}, ${false}, ${null}, ${undefined}`)).toBe('select true, false, null, null');
  });

  it('writes a Date as its ISO string', () => {
    expect(literal(new Date('2024-02-29T12:34:56.789Z'))).toBe("E'2024-02-29T12:34:56.789Z'");
  });

  it('writes arrays as an array literal in a string: every element quoted, " and \\ escaped', () => {
    expect(literal([])).toBe("E'{}'");
    expect(literal(['a', 'b'])).toBe(`E'{"a","b"}'`);
    expect(literal(['NULL', ''])).toBe(`E'{"NULL",""}'`);
    // The array text {"q\"uote","back\\slash","it's","a,b","{c}"}, then written as a string.
    expect(literal(['q"uote', 'back\\slash', "it's", 'a,b', '{c}', ' sp '])).toBe(`E'{"q\\\\"uote","back\\\\\\\\slash","it''s","a,b","{c}"," sp "}'`);
    expect(unquote(literal(['q"uote', 'back\\slash', "it's", 'a,b', '{c}']))).toBe(`{"q\\"uote","back\\\\slash","it's","a,b","{c}"}`);
  });

  it('writes the whole statement with every value in place, the SQL text untouched', () => {
    const at = new Date('2024-01-02T03:04:05.000Z');
    expect(toLiteral(sql`insert into t values (${"it's"}, ${-1}, ${at}, ${['x']}::text[], ${null}) -- ${'not a comment'}`)).toBe(
      `insert into t values (E'it''s', (-1), E'2024-01-02T03:04:05.000Z', E'{"x"}'::text[], null) -- E'not a comment'`,
    );
    expect(toLiteral(sql`select 'it''s' as a`)).toBe(`select 'it''s' as a`);
  });
});

describe('fragments', () => {
  it('splices a fragment as SQL, its values in order with the others', () => {
    const where = sql`a = ${1} and b = ${'x'}`;
    const statement = sql`select * from t where ${where} and c = ${true}`;
    expect(toBound(statement)).toEqual({ text: 'select * from t where a = $1 and b = $2 and c = $3', params: [1, 'x', true] });
    expect(toLiteral(statement)).toBe("select * from t where a = (1) and b = E'x' and c = true");
  });

  it('nests fragments at any depth, at the start, in the middle and at the end', () => {
    const inner = sql`${1} + ${2}`;
    const middle = sql`(${inner}) * ${3}`;
    const statement = sql`${middle} as n, ${sql`${'s'}`}, ${sql``}${sql`${4}`}`;
    expect(toBound(statement)).toEqual({ text: '($1 + $2) * $3 as n, $4, $5', params: [1, 2, 3, 's', 4] });
    expect(statement.chunks).toHaveLength(statement.values.length + 1);
    expect(statement.values.some((v) => v instanceof Sql)).toBe(false);
  });

  it('sql.join joins fragments with a separator, ", " unless given', () => {
    const columns = [sql`a = ${1}`, sql`b = ${'two'}`, sql`c`];
    expect(toBound(sql`update t set ${sql.join(columns)}`)).toEqual({ text: 'update t set a = $1, b = $2, c', params: [1, 'two'] });
    expect(toBound(sql`select 1 where ${sql.join(columns.slice(0, 2), sql` and ${true} and `)}`)).toEqual({
      text: 'select 1 where a = $1 and $2 and b = $3',
      params: [1, true, 'two'],
    });
    expect(toBound(sql.join([]))).toEqual({ text: '', params: [] });
    expect(toBound(sql.join([sql`only ${1}`]))).toEqual({ text: 'only $1', params: [1] });
    const rows = [
      [1, 'a'],
      [2, "b'"],
    ].map(([n, s]) => sql`(${n as number}, ${s as string})`);
    expect(toLiteral(sql`insert into t values ${sql.join(rows)}`)).toBe("insert into t values ((1), E'a'), ((2), E'b''')");
  });
});

describe('making a statement', () => {
  it('is done with the tag only: sql called as a plain function throws', () => {
    const call = sql as unknown as (strings: readonly string[], ...values: unknown[]) => Sql;
    expect(() => call(['select 1'])).toThrow(TypeError);
    expect(() => call(['select ', ''], 1)).toThrow(TypeError);
    // Even an array made to look like a template's strings: not frozen, or without raw.
    expect(() => call(Object.assign(['select 1'], { raw: ['select 1'] }))).toThrow(TypeError);
    expect(() => call(Object.freeze(['select 1']))).toThrow(TypeError);
  });

  it('cannot be done with the constructor', () => {
    const make = Sql as unknown as new (token: symbol, chunks: string[], values: unknown[]) => Sql;
    expect(() => new make(Symbol('sql'), ['select 1'], [])).toThrow(TypeError);
  });

  it('keeps one more literal part than values', () => {
    const statement = sql`a ${1} b ${2} c`;
    expect(statement.chunks).toEqual(['a ', ' b ', ' c']);
    expect(statement.values).toEqual([1, 2]);
  });
});
