/**
 * SQL statements whose values cannot be mis-escaped: the one module that turns values into SQL.
 *
 * A statement is written with the `sql` tag, and every `${…}` in it is a value, never SQL text:
 *
 *     sql`select * from public.apps where id = ${appId}::uuid and slug = any(${slugs}::text[])`
 *
 * A value is a string, a finite number, a bigint, a boolean, null (or undefined), a Date, a flat
 * array of strings (`text[]`; the only arrays both drivers bind and read back alike), or another
 * statement made with the tag (a fragment, spliced as SQL). Nothing else compiles, and a plain string can never become SQL text: the only SQL text
 * is what the tag's literal parts say, written in the source. The engine then either binds the
 * values as parameters (`$1`, `$2`: the extended protocol, `toBound`) or, to send several
 * statements as one message in one round trip, writes each value as a literal (`toLiteral`). The
 * literal forms are few and are tested here: strings as `E'…'` with `\` doubled and `'` doubled
 * (never `\'`, which `backslash_quote = off` refuses), so one text means the same whatever
 * `standard_conforming_strings` says; numbers in parentheses (`1-${-1}` must not become a `--`
 * comment); arrays as an array literal inside such a string. Types come from the statement's own
 * casts (`${x}::uuid`), as they would for a parameter.
 *
 * Route and domain code never holds the engine (lib/platform/db/engine.ts), only this tag and the roles
 * that run statements (lib/platform/db/roles.ts); eslint.config.mjs keeps it so.
 */

/** One value a statement may carry. */
export type SqlValue = string | number | bigint | boolean | null | undefined | Date | readonly string[] | Sql;
type Leaf = Exclude<SqlValue, Sql | undefined>;

/** Only this module makes statements: the constructor asks for a token nothing else holds. */
const MADE_HERE = Symbol('sql');
/**
 * What marks a statement, so a fragment is known as one (`isSql`) wherever this module was
 * bundled: Next puts it into more than one chunk, and a class is then not the same class in each.
 */
const STATEMENT = Symbol.for('monetize.sql-statement');

function isSql(value: unknown): value is Sql {
  return typeof value === 'object' && value !== null && (value as { [STATEMENT]?: unknown })[STATEMENT] === true;
}

export class Sql {
  /** The literal parts: one more than the values. */
  readonly chunks: readonly string[];
  /** The values between them, fragments already spliced in. */
  readonly values: readonly Leaf[];

  readonly [STATEMENT] = true;

  constructor(token: typeof MADE_HERE, chunks: readonly string[], values: readonly Leaf[]) {
    if (token !== MADE_HERE) throw new TypeError('a statement is made with the sql tag');
    this.chunks = chunks;
    this.values = values;
  }
}

/** A statement from literal parts and values; fragments are flattened, so a statement is one list of parts and values. */
function build(strings: readonly string[], values: readonly SqlValue[]): Sql {
  const chunks: string[] = [strings[0]!];
  const flat: Leaf[] = [];
  values.forEach((value, i) => {
    if (isSql(value)) {
      chunks[chunks.length - 1] += value.chunks[0]!;
      value.values.forEach((inner, j) => {
        flat.push(inner);
        chunks.push(value.chunks[j + 1]!);
      });
      chunks[chunks.length - 1] += strings[i + 1]!;
    } else {
      flat.push(checked(value === undefined ? null : value));
      chunks.push(strings[i + 1]!);
    }
  });
  return new Sql(MADE_HERE, chunks, flat);
}

/**
 * The tag. Only a template's own strings are taken as SQL: a template object is frozen and has
 * `raw`, which an array passed by hand (`sql([text])`) would have to forge; lint forbids calling
 * `sql` as a function anyway.
 */
export function sql(strings: TemplateStringsArray, ...values: SqlValue[]): Sql {
  if (!Object.isFrozen(strings) || !Array.isArray((strings as { raw?: unknown }).raw)) throw new TypeError('sql is a template tag: write sql`…`');
  return build(strings, values);
}

/** Fragments joined by `separator` (a fragment too): lists of rows, columns or conditions. */
sql.join = function join(fragments: readonly Sql[], separator: Sql = sql`, `): Sql {
  const values = fragments.flatMap((fragment, i) => (i === 0 ? [fragment] : [separator, fragment]));
  return build(
    Array.from({ length: values.length + 1 }, () => ''),
    values,
  );
};

function checked(value: Leaf): Leaf {
  if (typeof value === 'number' && !Number.isFinite(value)) throw new TypeError(`a SQL number must be finite: ${value}`);
  if (typeof value === 'string' && value.includes('\0')) throw new TypeError('a SQL text cannot hold NUL');
  if (value instanceof Date && Number.isNaN(value.getTime())) throw new TypeError('a SQL date must be a valid date');
  if (Array.isArray(value)) {
    for (const item of value as readonly unknown[]) {
      if (typeof item !== 'string') throw new TypeError('a SQL array holds strings (text[])');
      checked(item as Leaf);
    }
  } else if (typeof value === 'object' && value !== null && !(value instanceof Date)) {
    throw new TypeError('a SQL value is a string, number, bigint, boolean, null, Date, array of strings or statement');
  }
  return value;
}

/** The statement with `$1`, `$2`… and the values to bind (the extended protocol). */
export function toBound(statement: Sql): { text: string; params: unknown[] } {
  let text = statement.chunks[0]!;
  const params = statement.values.map((value, i) => {
    text += `$${i + 1}${statement.chunks[i + 1]}`;
    return value instanceof Date ? value.toISOString() : typeof value === 'bigint' ? value.toString() : value;
  });
  return { text, params };
}

/** The statement with every value written as a literal: for several statements sent as one message. */
export function toLiteral(statement: Sql): string {
  let text = statement.chunks[0]!;
  statement.values.forEach((value, i) => {
    // Checked when the statement was made: written as they are.
    text += written(value) + statement.chunks[i + 1]!;
  });
  return text;
}

/** A value as a SQL literal (the module comment gives the forms and why), refused as the tag refuses it. */
export function literal(value: Leaf): string {
  return written(checked(value));
}

function written(value: Leaf): string {
  if (value === null) return 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number' || typeof value === 'bigint') return `(${value.toString()})`;
  if (value instanceof Date) return quote(value.toISOString());
  if (typeof value === 'string') return quote(value);
  return quote(arrayText(value));
}

/** A string constant with C-style escapes (PostgreSQL 4.1.2.2), read the same under every setting. */
function quote(text: string): string {
  return `E'${text.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`;
}

/** The text form of a one-dimensional array (PostgreSQL 8.15.6): every element quoted. */
function arrayText(items: readonly string[]): string {
  const element = (item: string) => `"${item.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;
  return `{${items.map(element).join(',')}}`;
}
