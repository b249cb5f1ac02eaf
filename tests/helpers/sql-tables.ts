import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Engine, Transaction } from '../../lib/platform/db/engine';

/**
 * The tables' current state in one place (supabase/schemas/README.md): each table of the schemas
 * `public` and `auth` has a file `supabase/schemas/tables/<schema>.<table>.sql` saying what the
 * migrations have made of it by now: its columns, constraints, indexes, row-level security,
 * policies, triggers and grants. The files are not written by hand: `describeTables` reads them
 * off a migrated database's catalog, `npm run db:tables` (scripts/db-tables.ts) writes them, and
 * tests/integration/sql-tables.test.ts reads a migrated database again on every engine and
 * compares. So a migration that changes a table without the file being regenerated fails there.
 *
 * The text is the database's own wherever the catalog prints it: types by `format_type`,
 * defaults, generated columns and policy expressions by `pg_get_expr`, constraints by
 * `pg_get_constraintdef`, indexes by `pg_get_indexdef`, triggers by `pg_get_triggerdef`. It is
 * read with `search_path` set to `pg_catalog` alone, so every name outside it comes out with its
 * schema whatever the connection's settings. Rows are sorted here, by code point, not by the
 * database, whose collation may differ from one server to the next.
 *
 * What differs between PostgreSQL versions, and how it is kept out of the text (the one place
 * that does so; the functions below refer to it):
 *
 * 1. Not-null constraints. From PostgreSQL 18 (PGlite 0.5 is 18) a `not null` is also a row of
 *    `pg_constraint` (contype 'n'), with a generated name; before 18 it is only the column's
 *    `attnotnull`. A column's `not null` is read from `attnotnull` on every version and the 'n'
 *    rows are not listed as constraints. (Our migrations must also run on 15, which cannot name
 *    a not-null constraint, mark it `no inherit` on a table or `not valid`, so nothing is lost.)
 * 2. The MAINTAIN privilege. PostgreSQL 17 added it to tables, and `grant all` gives it there;
 *    15 and 16 have no such privilege. A role holding every privilege its server has on a table
 *    (or sequence) is printed `all` on every version; otherwise MAINTAIN is left out of the list.
 *    (No migration can name MAINTAIN, since it would fail on 15: a role holds it only by `all`.)
 *
 * Nothing else is normalized: the comparison is of the whole text, line by line.
 */

export const TABLES_DIR = path.join(process.cwd(), 'supabase', 'schemas', 'tables');

export interface TableFile {
  /** The file's name, `<schema>.<table>.sql`. */
  name: string;
  sql: string;
}

export function readTableFiles(dir = TABLES_DIR): TableFile[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .sort()
    .map((name) => ({ name, sql: readFileSync(path.join(dir, name), 'utf8') }));
}

/** One table as its file prints it. */
export interface DescribedTable {
  /** `schema.table`, unquoted. */
  table: string;
  /** `<schema>.<table>.sql`. */
  file: string;
  text: string;
}

/** What the catalog holds in `public` and `auth` that these files do not describe, one sentence each. */
export interface Description {
  tables: DescribedTable[];
  undescribed: string[];
}

const byCodePoint = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

// Relations of the two schemas that our migrations made (not an extension's).
const RELATIONS = `
  select c.oid::bigint as oid, n.nspname as schema, c.relname as name, c.relkind as kind,
         format('%I.%I', n.nspname, c.relname) as qualified,
         c.relpersistence as persistence, c.relrowsecurity as rls, c.relforcerowsecurity as force_rls,
         coalesce(array_to_string(c.reloptions, ', '), '') as options, c.relreplident as replica_identity,
         coalesce(quote_literal(obj_description(c.oid, 'pg_class')), '') as comment,
         -- The table whose column owns a sequence (serial and identity columns): it is described there.
         (select d.refobjid::bigint from pg_depend d
          where d.classid = 'pg_class'::regclass and d.objid = c.oid and d.refclassid = 'pg_class'::regclass
            and d.refobjsubid > 0 and d.deptype in ('a', 'i')) as owned_by
  from pg_class c join pg_namespace n on n.oid = c.relnamespace
  where n.nspname in ('public', 'auth') and c.relkind in ('r', 'p', 'v', 'm', 'f', 'S')
    and not exists (select 1 from pg_depend d where d.classid = 'pg_class'::regclass and d.objid = c.oid and d.deptype = 'e')`;

const COLUMNS = `
  select a.attrelid::bigint as rel, a.attnum as num, quote_ident(a.attname) as name,
         format_type(a.atttypid, a.atttypmod) as type, a.attnotnull as not_null,
         a.attidentity as identity, a.attgenerated as generated,
         pg_get_expr(d.adbin, d.adrelid) as expression,
         case when a.attcollation <> 0 and a.attcollation <> t.typcollation
              then (select format('%I.%I', cn.nspname, co.collname) from pg_collation co join pg_namespace cn on cn.oid = co.collnamespace where co.oid = a.attcollation)
         end as collation,
         coalesce(quote_literal(col_description(a.attrelid, a.attnum)), '') as comment
  from pg_attribute a
  join pg_type t on t.oid = a.atttypid
  left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
  where a.attrelid = any(string_to_array($1::text, ',')::oid[]) and a.attnum > 0 and not a.attisdropped`;

// Versions, 1: contype 'n' (not null, PostgreSQL 18) is the columns' `not null`; 't' (a constraint
// trigger) is listed with the triggers.
const CONSTRAINTS = `
  select k.conrelid::bigint as rel, quote_ident(k.conname) as name, k.contype as kind, pg_get_constraintdef(k.oid) as definition
  from pg_constraint k
  where k.conrelid = any(string_to_array($1::text, ',')::oid[]) and k.contype in ('p', 'u', 'f', 'c', 'x')`;

// Indexes a constraint made are the constraint's (`primary key`, `unique`, `exclude`).
const INDEXES = `
  select i.indrelid::bigint as rel, ic.relname as name, pg_get_indexdef(i.indexrelid) as definition,
         coalesce(quote_literal(obj_description(i.indexrelid, 'pg_class')), '') as comment,
         format('%I.%I', n.nspname, ic.relname) as qualified
  from pg_index i join pg_class ic on ic.oid = i.indexrelid join pg_namespace n on n.oid = ic.relnamespace
  where i.indrelid = any(string_to_array($1::text, ',')::oid[])
    and not exists (select 1 from pg_constraint k where k.conindid = i.indexrelid and k.conrelid = i.indrelid and k.contype in ('p', 'u', 'x'))`;

const POLICIES = `
  select p.polrelid::bigint as rel, quote_ident(p.polname) as name, p.polcmd as command, p.polpermissive as permissive,
         array(select case when r = 0 then 'public' else quote_ident(pg_get_userbyid(r)) end from unnest(p.polroles) r) as roles,
         pg_get_expr(p.polqual, p.polrelid) as using, pg_get_expr(p.polwithcheck, p.polrelid) as with_check
  from pg_policy p
  where p.polrelid = any(string_to_array($1::text, ',')::oid[])`;

const TRIGGERS = `
  select t.tgrelid::bigint as rel, quote_ident(t.tgname) as name, pg_get_triggerdef(t.oid) as definition, t.tgenabled as enabled
  from pg_trigger t
  where t.tgrelid = any(string_to_array($1::text, ',')::oid[]) and not t.tgisinternal`;

// Who holds what on each table and sequence, the owner apart (its privileges are a new table's,
// whoever it is); `everything` is what the owner of such a relation holds by default: all there is.
const GRANTS = `
  select c.oid::bigint as rel, case when x.grantee = 0 then 'public' else quote_ident(pg_get_userbyid(x.grantee)) end as grantee,
         x.privilege_type as privilege, x.is_grantable as grantable, x.grantee = c.relowner as owner,
         array(select d.privilege_type from aclexplode(acldefault(case when c.relkind = 'S' then 's' else 'r' end::"char", c.relowner)) d
               where d.grantee = c.relowner) as everything
  from pg_class c, aclexplode(c.relacl) x
  where c.oid = any(string_to_array($1::text, ',')::oid[])`;

const COLUMN_GRANTS = `
  select a.attrelid::bigint as rel, a.attnum as num, quote_ident(a.attname) as column,
         case when x.grantee = 0 then 'public' else quote_ident(pg_get_userbyid(x.grantee)) end as grantee,
         x.privilege_type as privilege, x.is_grantable as grantable
  from pg_attribute a, aclexplode(a.attacl) x
  where a.attrelid = any(string_to_array($1::text, ',')::oid[]) and a.attnum > 0 and not a.attisdropped`;

interface Relation {
  oid: number;
  schema: string;
  name: string;
  kind: string;
  qualified: string;
  persistence: string;
  rls: boolean;
  force_rls: boolean;
  options: string;
  replica_identity: string;
  comment: string;
  owned_by: number | null;
}
interface Column {
  rel: number;
  num: number;
  name: string;
  type: string;
  not_null: boolean;
  identity: string;
  generated: string;
  expression: string | null;
  collation: string | null;
  comment: string;
}
interface Constraint {
  rel: number;
  name: string;
  kind: string;
  definition: string;
}
interface Index {
  rel: number;
  name: string;
  definition: string;
  comment: string;
  qualified: string;
}
interface Policy {
  rel: number;
  name: string;
  command: string;
  permissive: boolean;
  roles: string[];
  using: string | null;
  with_check: string | null;
}
interface Trigger {
  rel: number;
  name: string;
  definition: string;
  enabled: string;
}
interface Grant {
  rel: number;
  grantee: string;
  privilege: string;
  grantable: boolean;
  owner: boolean;
  everything: string[];
}
interface ColumnGrant {
  rel: number;
  num: number;
  column: string;
  grantee: string;
  privilege: string;
  grantable: boolean;
}

const KIND_NAMES: Record<string, string> = { p: 'a partitioned table', v: 'a view', m: 'a materialized view', f: 'a foreign table', S: 'a sequence' };
const CONSTRAINT_ORDER = ['p', 'u', 'f', 'c', 'x'];
const COMMANDS: Record<string, string> = { '*': 'all', r: 'select', a: 'insert', w: 'update', d: 'delete' };
const PRIVILEGE_ORDER = ['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'TRUNCATE', 'REFERENCES', 'TRIGGER', 'MAINTAIN', 'USAGE'];
const TRIGGER_STATES: Record<string, string> = { D: 'disable trigger', R: 'enable replica trigger', A: 'enable always trigger' };

function groupBy<T extends { rel: number }>(rows: T[]): Map<number, T[]> {
  const map = new Map<number, T[]>();
  for (const row of rows) {
    const list = map.get(row.rel) ?? [];
    list.push(row);
    map.set(row.rel, list);
  }
  return map;
}

/**
 * Reads every table of `public` and `auth` off the catalog, and prints each one's file. Runs in a
 * transaction of its own, so that the `search_path` it sets ends with it; with `tx`, in that one
 * (a comparison that changed the database first).
 */
export async function describeTables(db: Engine | Transaction): Promise<Description> {
  if ('transaction' in db) return db.transaction((tx) => describeTables(tx));
  await db.exec('set local search_path to pg_catalog');
  const relations = await db.query<Relation & Record<string, unknown>>(RELATIONS);
  const tables = relations.filter((r) => r.kind === 'r');
  const undescribed = relations
    .filter((r) => r.kind !== 'r' && !(r.kind === 'S' && r.owned_by !== null && tables.some((t) => t.oid === r.owned_by)))
    .map(
      (r) =>
        `${r.schema}.${r.name}: ${KIND_NAMES[r.kind] ?? `a relation of kind ${r.kind}`}, which these files do not describe: give it a file and a check of its own`,
    )
    .sort(byCodePoint);
  const oids = relations.map((r) => r.oid);
  const read = async <T extends { rel: number }>(text: string) => groupBy(await db.query<T & Record<string, unknown>>(text, [oids.join(',')]));
  const columns = await read<Column>(COLUMNS);
  const constraints = await read<Constraint>(CONSTRAINTS);
  const indexes = await read<Index>(INDEXES);
  const policies = await read<Policy>(POLICIES);
  const triggers = await read<Trigger>(TRIGGERS);
  const grants = await read<Grant>(GRANTS);
  const columnGrants = await read<ColumnGrant>(COLUMN_GRANTS);

  const described = tables.map((table) => {
    const sequences = relations.filter((r) => r.kind === 'S' && r.owned_by === table.oid).sort((a, b) => byCodePoint(a.qualified, b.qualified));
    const text = printTable(table, {
      columns: columns.get(table.oid) ?? [],
      constraints: constraints.get(table.oid) ?? [],
      indexes: indexes.get(table.oid) ?? [],
      policies: policies.get(table.oid) ?? [],
      triggers: triggers.get(table.oid) ?? [],
      grants: grants.get(table.oid) ?? [],
      columnGrants: columnGrants.get(table.oid) ?? [],
      sequences: sequences.map((s) => ({ sequence: s, grants: grants.get(s.oid) ?? [] })),
    });
    return { table: `${table.schema}.${table.name}`, file: `${table.schema}.${table.name}.sql`, text };
  });
  return { tables: described.sort((a, b) => byCodePoint(a.file, b.file)), undescribed };
}

interface Parts {
  columns: Column[];
  constraints: Constraint[];
  indexes: Index[];
  policies: Policy[];
  triggers: Trigger[];
  grants: Grant[];
  columnGrants: ColumnGrant[];
  sequences: { sequence: Relation; grants: Grant[] }[];
}

/**
 * The catalog prints a long expression (a `case`, a subquery) on several lines, the first of them
 * unindented: they are moved right by four spaces, under the line they continue. Only whitespace
 * at the start of a line changes, on every engine alike.
 */
function indent(text: string): string {
  return text.replaceAll('\n', '\n    ');
}

function printColumn(c: Column): string {
  const parts = [c.name, c.type];
  if (c.collation) parts.push(`collate ${c.collation}`);
  if (c.identity) parts.push(`generated ${c.identity === 'a' ? 'always' : 'by default'} as identity`);
  if (c.generated) parts.push(`generated always as (${c.expression}) ${c.generated === 's' ? 'stored' : 'virtual'}`);
  if (c.not_null) parts.push('not null');
  if (!c.generated && c.expression !== null) parts.push(`default ${c.expression}`);
  return parts.join(' ');
}

/**
 * One relation's grants, a line a grantee. Versions, 2: a grantee holding every privilege the
 * relation can have is printed `all`; MAINTAIN is otherwise not printed.
 */
function printGrants(what: string, grants: Grant[]): string[] {
  const lines: string[] = [];
  const everything = grants[0]?.everything ?? [];
  const owner = grants.filter((g) => g.owner);
  if (grants.length > 0 && (owner.length !== everything.length || owner.some((g) => g.grantable))) {
    // Never so today: said, so that a change to it shows in the file.
    const held = sortPrivileges(owner.map((g) => g.privilege)).join(', ') || 'nothing';
    lines.push(`-- The owner holds ${held} on ${what}, not all its privileges.`);
  }
  const byGrantee = new Map<string, Grant[]>();
  for (const g of grants.filter((g) => !g.owner)) byGrantee.set(g.grantee, [...(byGrantee.get(g.grantee) ?? []), g]);
  for (const grantee of [...byGrantee.keys()].sort(byCodePoint)) {
    const held = byGrantee.get(grantee)!;
    for (const grantable of [false, true]) {
      const these = held.filter((g) => g.grantable === grantable).map((g) => g.privilege);
      if (these.length === 0) continue;
      const all = everything.every((p) => these.includes(p));
      const list = all
        ? 'all'
        : sortPrivileges(these.filter((p) => p !== 'MAINTAIN'))
            .join(', ')
            .toLowerCase();
      if (list) lines.push(`grant ${list} on ${what} to ${grantee}${grantable ? ' with grant option' : ''};`);
    }
  }
  return lines;
}

function sortPrivileges(privileges: string[]): string[] {
  return [...privileges].sort((a, b) => PRIVILEGE_ORDER.indexOf(a) - PRIVILEGE_ORDER.indexOf(b) || byCodePoint(a, b));
}

function printColumnGrants(what: string, grants: ColumnGrant[]): string[] {
  const groups = new Map<string, ColumnGrant[]>();
  for (const g of grants) {
    const key = `${g.grantee}\u0000${g.privilege}\u0000${g.grantable}`;
    groups.set(key, [...(groups.get(key) ?? []), g]);
  }
  return [...groups.values()]
    .map((group) => {
      const { grantee, privilege, grantable } = group[0]!;
      const columns = group
        .sort((a, b) => a.num - b.num)
        .map((g) => g.column)
        .join(', ');
      return { grantee, privilege, line: `grant ${privilege.toLowerCase()} (${columns}) on ${what} to ${grantee}${grantable ? ' with grant option' : ''};` };
    })
    .sort(
      (a, b) => byCodePoint(a.grantee, b.grantee) || PRIVILEGE_ORDER.indexOf(a.privilege) - PRIVILEGE_ORDER.indexOf(b.privilege) || byCodePoint(a.line, b.line),
    )
    .map((g) => g.line);
}

function printTable(table: Relation, parts: Parts): string {
  const name = table.qualified;
  const sections: string[][] = [];
  sections.push([
    `-- ${table.schema}.${table.name}, as the migrations leave it. Generated by \`npm run db:tables\` from a`,
    '-- migrated database: do not edit. A migration changes the table, then the command rewrites',
    '-- this file (supabase/schemas/README.md, Tables).',
  ]);

  const body = [
    ...parts.columns.sort((a, b) => a.num - b.num).map(printColumn),
    ...parts.constraints
      .sort((a, b) => CONSTRAINT_ORDER.indexOf(a.kind) - CONSTRAINT_ORDER.indexOf(b.kind) || byCodePoint(a.name, b.name))
      .map((k) => `constraint ${k.name} ${k.definition}`),
  ];
  const kind = table.persistence === 'u' ? 'unlogged table' : table.persistence === 't' ? 'temporary table' : 'table';
  sections.push([
    `create ${kind} ${name} (`,
    ...body.map((line, i) => `  ${indent(line)}${i < body.length - 1 ? ',' : ''}`),
    `)${table.options ? ` with (${table.options})` : ''};`,
  ]);

  const comments = [
    ...(table.comment ? [`comment on table ${name} is ${table.comment};`] : []),
    ...parts.columns.filter((c) => c.comment).map((c) => `comment on column ${name}.${c.name} is ${c.comment};`),
  ];
  sections.push(comments);

  const indexes = parts.indexes.sort((a, b) => byCodePoint(a.name, b.name));
  sections.push([
    ...indexes.map((i) => `${i.definition};`),
    ...indexes.filter((i) => i.comment).map((i) => `comment on index ${i.qualified} is ${i.comment};`),
  ]);

  const identity = { n: 'nothing', f: 'full', d: '' }[table.replica_identity] ?? `using index (${table.replica_identity})`;
  sections.push([
    ...(table.rls ? [`alter table ${name} enable row level security;`] : []),
    ...(table.force_rls ? [`alter table ${name} force row level security;`] : []),
    ...(identity ? [`alter table ${name} replica identity ${identity};`] : []),
  ]);

  for (const p of parts.policies.sort((a, b) => byCodePoint(a.name, b.name))) {
    const lines = [`create policy ${p.name} on ${name}`];
    lines.push(`  as ${p.permissive ? 'permissive' : 'restrictive'} for ${COMMANDS[p.command] ?? p.command} to ${[...p.roles].sort(byCodePoint).join(', ')}`);
    if (p.using !== null) lines.push(`  using (${indent(p.using)})`);
    if (p.with_check !== null) lines.push(`  with check (${indent(p.with_check)})`);
    lines[lines.length - 1] += ';';
    sections.push(lines);
  }

  const triggers = parts.triggers.sort((a, b) => byCodePoint(a.name, b.name));
  sections.push([
    ...triggers.map((t) => `${t.definition};`),
    ...triggers.filter((t) => TRIGGER_STATES[t.enabled]).map((t) => `alter table ${name} ${TRIGGER_STATES[t.enabled]} ${t.name};`),
  ]);

  sections.push([...printGrants(`table ${name}`, parts.grants), ...printColumnGrants(`table ${name}`, parts.columnGrants)]);
  for (const { sequence, grants } of parts.sequences) {
    // Named for the grants: the sequence itself is the column's (`generated ... as identity`, or a `nextval` default).
    const granted = printGrants(`sequence ${sequence.qualified}`, grants);
    const note = granted.length ? '' : '; only its owner may use it';
    sections.push([`-- The sequence ${sequence.qualified} belongs to a column of this table${note}.`, ...granted]);
  }

  return (
    sections
      .filter((s) => s.length > 0)
      .map((s) => s.join('\n'))
      .join('\n\n') + '\n'
  );
}

const FILE_NAME = /^(public|auth)\.([a-z_][a-z0-9_$]*)\.sql$/;

/** The first line where two texts differ, for a message a person can act on. */
function firstDifference(migrated: string, file: string): string {
  const left = migrated.split('\n');
  const right = file.split('\n');
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    if (left[i] !== right[i])
      return `line ${i + 1}: after the migrations ${JSON.stringify(left[i] ?? '(no line)')}, in the file ${JSON.stringify(right[i] ?? '(no line)')}`;
  }
  return 'same lines';
}

/** The differences between a database's tables and the files, one sentence each; none when they agree. */
export function compareDescriptionWithFiles(description: Description, files: TableFile[]): string[] {
  const problems = [...description.undescribed];
  const files_ = new Map(files.map((f) => [f.name, f]));
  const tables = new Map(description.tables.map((t) => [t.file, t]));
  for (const table of description.tables) {
    const file = files_.get(table.file);
    if (!file) problems.push(`${table.table}: has no file (supabase/schemas/tables/${table.file}): run npm run db:tables`);
    else if (file.sql !== table.text)
      problems.push(
        `${table.table}: supabase/schemas/tables/${table.file} differs from the migrated table, ${firstDifference(table.text, file.sql)}: run npm run db:tables`,
      );
  }
  for (const file of files) {
    if (!FILE_NAME.test(file.name)) problems.push(`${file.name}: a file is named <schema>.<table>.sql, with the schema public or auth`);
    else if (!tables.has(file.name)) problems.push(`${file.name}: no migration creates its table: run npm run db:tables, which deletes it`);
  }
  return problems;
}

class RollBack extends Error {}

/**
 * Compares the tables of `db` with `files`. `alter`, when given, runs first, in a transaction
 * that is then rolled back: a test uses it to change the database the way a migration would.
 */
export async function compareTablesWithFiles(db: Engine, files: TableFile[], alter?: (tx: Transaction) => Promise<void>): Promise<string[]> {
  if (!alter) return compareDescriptionWithFiles(await describeTables(db), files);
  let problems: string[] = [];
  try {
    await db.transaction(async (tx) => {
      await alter(tx);
      problems = compareDescriptionWithFiles(await describeTables(tx), files);
      throw new RollBack();
    });
  } catch (err) {
    if (!(err instanceof RollBack)) throw err;
  }
  return problems;
}
