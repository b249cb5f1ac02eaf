import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine, Row } from '@/lib/platform/db/engine';
import { sql, toBound, toLiteral, type Sql } from '@/lib/platform/db/sql';
import { testEngines } from '../helpers/db';

/**
 * The values of the `sql` tag (lib/platform/db/sql.ts) reach the database unchanged on every engine, by
 * both paths: bound as parameters (`toBound`, the extended protocol) and written as literals in a
 * one-message script (`toLiteral`, the simple protocol). Hostile strings and arrays come back as
 * they were sent, and no value changes how many statements a message holds, also under
 * `backslash_quote = off` and `standard_conforming_strings = off` (set with `set local` in the
 * transaction: PGlite is one session, and a session-level SET would outlive the test).
 */

const HOSTILE_STRINGS = [
  '',
  'plain',
  "it's",
  "''",
  "'",
  'back\\slash',
  '\\',
  'ends with a backslash \\',
  "\\'",
  "\\\\'",
  "\\''\\",
  '\\x41 \\101 \\u0041 \\n \\t \\0',
  '"double" "quotes"',
  '$$',
  '$$; drop table public.users; --',
  '$tag$ $ $$ $$$',
  'ends with $',
  "E'x'",
  "'; select 'pwned",
  "'); drop table public.users; --",
  '-- a comment',
  '1; select 2;',
  ';',
  '*/ select 1 /*',
  '/* unclosed',
  'line\nbreak\r\nand\ttab',
  '\u2028\u2029',
  'ünïcødé ✓ 日本語 𝄞 🙂',
  '\u00a0non-breaking',
  '%_[]^',
  '{"json": "it\'s \\\\ $$"}',
];

/** Arrays of texts; those with NULL elements have a test of their own (below). */
const HOSTILE_ARRAYS: string[][] = [
  [],
  [''],
  ['a', 'b'],
  ['q"uote', '"', '\\"', '""'],
  ['back\\slash', '\\', '\\\\', 'ends \\'],
  ["it's", "'", "\\'", "''"],
  ['a,b', ',', '{c}', '{', '}', '{}', '{"x"}'],
  ['NULL', 'null', '"NULL"', 'NULL '],
  [' sp ', '\t', '\n', ''],
  ['$$', '--', ';', '*/', '/*', "E'x'", "'; select 'pwned"],
  ['ünïcødé', '𝄞', '🙂'],
];

/** The settings a message or transaction starts with, or none. */
const SETTINGS = {
  default: [] as string[],
  'backslash_quote = off': ['set local backslash_quote = off'],
  'standard_conforming_strings = off': ['set local standard_conforming_strings = off'],
  'both off': ['set local backslash_quote = off', 'set local standard_conforming_strings = off'],
};
type Setting = keyof typeof SETTINGS;

/** `statement` with its values bound, in a transaction that starts with `settings`: its rows. */
function bound(engine: Engine, settings: string[], statement: Sql): Promise<Row[]> {
  const { text, params } = toBound(statement);
  if (settings.length === 0) return engine.query(text, params);
  return engine.transaction(async (tx) => {
    for (const s of settings) await tx.query(s);
    return tx.query(text, params);
  });
}

/**
 * `statements` written as literals and sent as one message (the simple protocol): each statement's
 * rows. With `settings`, the message runs in a transaction whose settings were made by an earlier
 * message: PostgreSQL parses a whole message before it runs any of it, so a `set local` in the
 * same message would not change how its literals are read. The transaction keeps each
 * statement's rows in a temporary table of its own (a message sent inside a transaction answers
 * none), dropped at commit.
 */
async function literal(engine: Engine, settings: string[], ...statements: Sql[]): Promise<Row[][]> {
  if (settings.length === 0) {
    const results = await engine.script(statements.map(toLiteral));
    expect(results).toHaveLength(statements.length);
    return results;
  }
  return engine.transaction(async (tx) => {
    await tx.exec(settings.join(';\n'));
    await tx.exec(statements.map((s, i) => `create temporary table literal_${i} on commit drop as ${toLiteral(s)}`).join(';\n'));
    const results: Row[][] = [];
    for (const [i] of statements.entries()) results.push(await tx.query(`select * from literal_${i}`));
    // No statement more than was sent: a value that ended its literal early would have made one.
    expect(await tx.query("select count(*)::int as n from pg_class where relnamespace = pg_my_temp_schema() and left(relname, 8) = 'literal_'")).toEqual([
      { n: statements.length },
    ]);
    return results;
  });
}

describe.each(testEngines())('SQL values on $name', (engine) => {
  let db: Engine;
  beforeAll(async () => {
    db = await engine.open();
  });
  afterAll(async () => {
    await db?.close();
  });

  /** The settings are what the engine starts with, before and after each test. */
  const expectDefaults = async () => {
    const [row] = await db.query<{ bq: string; scs: string }>(
      "select current_setting('backslash_quote') as bq, current_setting('standard_conforming_strings') as scs",
    );
    expect(row).toEqual({ bq: 'safe_encoding', scs: 'on' });
  };

  it('starts from the default settings', expectDefaults);

  describe.each(Object.keys(SETTINGS) as Setting[])('with %s', (setting) => {
    const settings = SETTINGS[setting];

    it('the settings are in force inside the message and the transaction, and gone after', async () => {
      const probe = sql`select current_setting('backslash_quote') as bq, current_setting('standard_conforming_strings') as scs`;
      const expected = {
        bq: settings.some((s) => s.includes('backslash_quote')) ? 'off' : 'safe_encoding',
        scs: settings.some((s) => s.includes('standard_conforming_strings')) ? 'off' : 'on',
      };
      expect(await bound(db, settings, probe)).toEqual([expected]);
      expect(await literal(db, settings, probe)).toEqual([[expected]]);
      await expectDefaults();
    });

    it.each(HOSTILE_STRINGS)('a text %j comes back unchanged, bound and as a literal', async (value) => {
      const statement = sql`select ${value}::text as v, length(${value}::text) as n`;
      const expected = [{ v: value, n: [...value].length }];
      expect(await bound(db, settings, statement)).toEqual(expected);
      // One message of three statements: the value, between two markers, changes neither their number nor their order.
      expect(await literal(db, settings, sql`select 'before' as m`, statement, sql`select 'after' as m`)).toEqual([
        [{ m: 'before' }],
        expected,
        [{ m: 'after' }],
      ]);
    });

    it.each(HOSTILE_ARRAYS.map((a) => [JSON.stringify(a), a] as const))('a text[] %s comes back unchanged, bound and as a literal', async (_, value) => {
      // The array as the database holds it (rendered to JSON by the server), and as the engine reads it.
      const statement = sql`select array_to_json(${value}::text[])::text as j, ${value}::text[] as v, cardinality(${value}::text[]) as n`;
      const expected = [{ j: JSON.stringify(value), v: value, n: value.length }];
      expect(await bound(db, settings, statement)).toEqual(expected);
      expect(await literal(db, settings, sql`select 'before' as m`, statement, sql`select 'after' as m`)).toEqual([
        [{ m: 'before' }],
        expected,
        [{ m: 'after' }],
      ]);
    });

    it('every hostile text in one message: as many answers as statements, each value in its place', async () => {
      const statements = HOSTILE_STRINGS.map((value, i) => sql`select ${i} as i, ${value}::text as v`);
      expect(await literal(db, settings, ...statements)).toEqual(HOSTILE_STRINGS.map((value, i) => [{ i, v: value }]));
    });

    it('leaves the settings as they were', expectDefaults);
  });

  it('numbers, negative ones included, bigints, booleans, nulls and dates come back unchanged, bound and as a literal', async () => {
    const at = new Date('2024-02-29T12:34:56.789Z');
    const statement = sql`select 1-${-1} as minus, 2 -${-2.5}::numeric as minus_spaced, ${-7}::int as negative, ${1.25}::float8 as fraction,
        ${-9007199254740993n}::int8::text as big, ${true}::boolean as yes, ${false}::boolean as no, ${null}::text as nothing,
        ${undefined}::int as missing, ${at}::timestamptz as at`;
    const expected = {
      minus: 2,
      minus_spaced: 4.5,
      negative: -7,
      fraction: 1.25,
      big: '-9007199254740993',
      yes: true,
      no: false,
      nothing: null,
      missing: null,
      at,
    };
    expect(await bound(db, [], statement)).toEqual([expected]);
    expect(await literal(db, [], statement)).toEqual([[expected]]);
  });

  it('a JSON text cast to jsonb is that JSON value, bound and as a literal', async () => {
    const json = { quote: "it's", backslash: '\\', dollars: '$$', nested: ['"', null, '\u2028'] };
    const statement = sql`select ${JSON.stringify(json)}::jsonb as json, ${JSON.stringify(json)}::json as plain`;
    expect(await literal(db, [], statement)).toEqual([[{ json, plain: json }]]);
    expect(await bound(db, [], statement)).toEqual([{ json, plain: json }]);
  });

  it('texts that spell NULL in a text[] reach the database as those texts under every setting, and are read back so', async () => {
    const value = ['NULL', 'null', '"NULL"', 'NULL ', ''];
    const statement = sql`select array_to_json(${value}::text[])::text as j, ${value}::text[] as v`;
    // What the database holds, rendered by the server: the texts as texts, none of them NULL.
    for (const settings of Object.values(SETTINGS)) {
      expect((await bound(db, settings, statement))[0]!.j, settings.join('; ')).toBe(JSON.stringify(value));
      expect((await literal(db, settings, statement))[0]![0]!.j, settings.join('; ')).toBe(JSON.stringify(value));
    }
    // And what the engine reads.
    expect((await bound(db, [], statement))[0]!.v).toEqual(value);
    expect((await literal(db, [], statement))[0]![0]!.v).toEqual(value);
  });

  it("the settings do bite: under backslash_quote = off a \\' is refused, and under standard_conforming_strings = off a plain string reads escapes", async () => {
    // The form lib/platform/db/sql.ts never writes (a quote escaped by a backslash) is refused outright.
    const refused = db.transaction(async (tx) => {
      await tx.exec('set local backslash_quote = off');
      await tx.exec("select E'it\\'s' as v");
    });
    await expect(refused).rejects.toThrow(/unsafe use of \\' in a string literal/);
    // A plain string reads backslash escapes when strings do not conform; an E'' string reads the same either way.
    const read = (settings: string[]) =>
      db.transaction(async (tx) => {
        if (settings.length > 0) await tx.exec(settings.join(';\n'));
        return tx.query("select 'a\\\\b' as plain, E'a\\\\b' as escaped");
      });
    expect(await read(['set local standard_conforming_strings = off'])).toEqual([{ plain: 'a\\b', escaped: 'a\\b' }]);
    expect(await read([])).toEqual([{ plain: 'a\\\\b', escaped: 'a\\b' }]);
    await expectDefaults();
  });

  it('a hostile value cannot end a literal early: a failing statement after it still fails, and rolls the message back', async () => {
    const name = `sql-literals-${Math.random().toString(36).slice(2, 10)}`;
    // A table of the test's own database (a temporary one would be another connection's on PostgreSQL).
    await db.exec('create schema if not exists probe; create table if not exists probe.literals (v text)');
    for (const value of HOSTILE_STRINGS) {
      const message = [sql`insert into probe.literals (v) values (${name + value}) returning 1`, sql`select 1 / 0`].map(toLiteral);
      await expect(db.script(message), value).rejects.toThrow(/division by zero/);
    }
    expect(await db.query('select count(*)::int as n from probe.literals where v like $1', [`${name}%`])).toEqual([{ n: 0 }]);
  });
});
