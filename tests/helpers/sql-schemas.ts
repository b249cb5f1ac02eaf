import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Engine, Transaction } from '../../lib/platform/db/engine';

/**
 * The SQL functions' one home (supabase/schemas/README.md): each function of the schemas `public`
 * and `auth` has its current definition in `supabase/schemas/functions/<schema>.<name>.sql`. This
 * compares a migrated database with those files, and says in words what differs.
 *
 * How: read every function as the catalog has it after the migrations (its definition as
 * `pg_get_functiondef` prints it, who may execute it, its comment); take the privileges and
 * comments back to a new function's; run every file (each a `create or replace`); read them
 * again. The two readings must be equal, and every function must have its file and every file
 * its function. All of it happens in one transaction that is rolled back, so the database is
 * left as it was and several comparisons can share it.
 */

export const SCHEMAS_DIR = path.join(process.cwd(), 'supabase', 'schemas', 'functions');

export interface SchemaFile {
  /** The file's name, `<schema>.<function>.sql`. */
  name: string;
  sql: string;
}

export function readSchemaFiles(dir = SCHEMAS_DIR): SchemaFile[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .sort()
    .map((name) => ({ name, sql: readFileSync(path.join(dir, name), 'utf8') }));
}

interface CatalogFunction {
  schema: string;
  name: string;
  /** `schema.name(argument types)`: one function, overloads apart. */
  signature: string;
  /** What `grant` and `revoke` need: the signature with each argument's type as the catalog spells it. */
  routine: string;
  definition: string;
  comment: string;
  /** Who may do what with it, owner-independent: `public:EXECUTE`, `owner:EXECUTE`, `sdk:EXECUTE`… */
  privileges: string[];
  /** The non-owner roles holding a privilege explicitly (to take it back). */
  grantees: string[];
}

// Functions our migrations made (not an extension's), whose text pg_get_functiondef can print:
// plain functions, procedures and window functions (an aggregate has no body to compare).
const FUNCTIONS = `
  select n.nspname as schema, p.proname as name,
         format('%s.%s(%s)', n.nspname, p.proname, oidvectortypes(p.proargtypes)) as signature,
         format('%I.%I(%s)', n.nspname, p.proname, oidvectortypes(p.proargtypes)) as routine,
         pg_get_functiondef(p.oid) as definition,
         coalesce(obj_description(p.oid, 'pg_proc'), '') as comment,
         array(select case when a.grantee = 0 then 'public' when a.grantee = p.proowner then 'owner' else pg_get_userbyid(a.grantee) end
                      || ':' || a.privilege_type || case when a.is_grantable then ' (grantable)' else '' end
               from aclexplode(coalesce(p.proacl, acldefault('f', p.proowner))) a
               order by 1) as privileges,
         array(select distinct pg_get_userbyid(a.grantee) from aclexplode(p.proacl) a
               where a.grantee <> 0 and a.grantee <> p.proowner order by 1) as grantees
  from pg_proc p join pg_namespace n on n.oid = p.pronamespace
  where n.nspname in ('public', 'auth') and p.prokind in ('f', 'p', 'w')
    and not exists (select 1 from pg_depend d where d.classid = 'pg_proc'::regclass and d.objid = p.oid and d.deptype = 'e')
  order by 3`;

/** The aggregates of those schemas: they would escape the comparison, so they are reported. */
const AGGREGATES = `
  select format('%s.%s', n.nspname, p.proname) as name
  from pg_proc p join pg_namespace n on n.oid = p.pronamespace
  where n.nspname in ('public', 'auth') and p.prokind = 'a'
    and not exists (select 1 from pg_depend d where d.classid = 'pg_proc'::regclass and d.objid = p.oid and d.deptype = 'e')`;

async function readFunctions(tx: Transaction): Promise<Map<string, CatalogFunction>> {
  const rows = await tx.query<CatalogFunction & Record<string, unknown>>(FUNCTIONS);
  return new Map(rows.map((r) => [r.signature, r]));
}

const FILE_NAME = /^(public|auth)\.([a-z_][a-z0-9_]*)\.sql$/;
// The start of every statement that creates a function or procedure, at the start of a line.
const CREATE = /^[ \t]*create\s+(or\s+replace\s+)?(?:function|procedure)\s+([a-z_"][\w"]*)\.([a-z_"][\w"]*)\s*\(/gim;

/** What the file's own text says wrongly: a name that is not `<schema>.<function>.sql`, or a statement for another function. */
function checkFileText(file: SchemaFile): string[] {
  const name = FILE_NAME.exec(file.name);
  if (!name) return [`${file.name}: a file is named <schema>.<function>.sql, with the schema public or auth`];
  const problems: string[] = [];
  const creates = [...file.sql.matchAll(CREATE)];
  if (creates.length === 0) problems.push(`${file.name}: creates no function`);
  for (const [statement, orReplace, schema, fn] of creates) {
    const named = `${schema!.replaceAll('"', '')}.${fn!.replaceAll('"', '')}`;
    if (named !== `${name[1]}.${name[2]}`) problems.push(`${file.name}: creates ${named}, not the function its name says`);
    if (!orReplace) problems.push(`${file.name}: "${statement.trim()}" must be "create or replace", so the file can run on a migrated database`);
  }
  return problems;
}

/** The first line where two texts differ, for a message a person can act on. */
function firstDifference(a: string, b: string): string {
  const left = a.split('\n');
  const right = b.split('\n');
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    if (left[i] !== right[i])
      return `line ${i + 1}: after the migrations ${JSON.stringify(left[i] ?? '(no line)')}, in the file ${JSON.stringify(right[i] ?? '(no line)')}`;
  }
  return 'same lines';
}

class RollBack extends Error {}

/**
 * Compares the functions of `db` with `files`, in a transaction that is rolled back. `alter`, when
 * given, runs first in that transaction: a test uses it to change the database the way a
 * migration would. Answers the differences, one sentence each, naming the function and its file;
 * none when they agree.
 */
export async function compareFunctionsWithFiles(db: Engine, files: SchemaFile[], alter?: (tx: Transaction) => Promise<void>): Promise<string[]> {
  let problems: string[] = [];
  try {
    await db.transaction(async (tx) => {
      if (alter) await alter(tx);
      problems = await compare(tx, files);
      throw new RollBack();
    });
  } catch (err) {
    if (!(err instanceof RollBack)) throw err;
  }
  return problems;
}

async function compare(tx: Transaction, files: SchemaFile[]): Promise<string[]> {
  const problems: string[] = [];
  for (const { name } of await tx.query<{ name: string }>(AGGREGATES))
    problems.push(`${name}: an aggregate, which this comparison cannot read: give it a file and a check of its own`);

  const migrated = await readFunctions(tx);
  const fileOf = (fn: { schema: string; name: string }) => `${fn.schema}.${fn.name}.sql`;
  const fileNames = new Set(files.map((f) => f.name));
  const functionNames = new Set([...migrated.values()].map(fileOf));

  for (const fn of migrated.values()) {
    if (!fileNames.has(fileOf(fn))) problems.push(`${fn.signature}: has no file (supabase/schemas/functions/${fileOf(fn)})`);
  }
  const runnable: SchemaFile[] = [];
  for (const file of files) {
    const wrong = checkFileText(file);
    problems.push(...wrong);
    if (wrong.length > 0) continue;
    if (!functionNames.has(file.name)) {
      problems.push(`${file.name}: no migration creates its function: add the migration, or delete the file`);
      continue;
    }
    runnable.push(file);
  }

  // As a new function has them: executable by everyone, no comment. What the files grant and
  // comment is then all there is, and must come out as the migrations left it.
  for (const fn of migrated.values()) {
    const from = ['public', ...fn.grantees.map((g) => `"${g.replaceAll('"', '""')}"`)].join(', ');
    await tx.exec(
      `revoke all on routine ${fn.routine} from ${from}; grant execute on routine ${fn.routine} to public; comment on routine ${fn.routine} is null;`,
    );
  }

  for (const file of runnable) {
    await tx.exec('savepoint schema_file');
    try {
      await tx.exec(file.sql);
      await tx.exec('release savepoint schema_file');
    } catch (err) {
      await tx.exec('rollback to savepoint schema_file');
      problems.push(`${file.name}: fails on the migrated database: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  const declared = await readFunctions(tx);
  for (const [signature, fn] of declared) {
    const before = migrated.get(signature);
    if (!before) {
      problems.push(`${signature}: ${fileOf(fn)} creates it, but no migration does (another argument list than the migrations' function?)`);
      continue;
    }
    // Reported above; its privileges, taken back for the comparison, would only say it again.
    if (!fileNames.has(fileOf(fn))) continue;
    if (fn.definition !== before.definition) {
      problems.push(`${signature}: ${fileOf(fn)} differs from the migrated definition, ${firstDifference(before.definition, fn.definition)}`);
    }
    if (fn.privileges.join(' ') !== before.privileges.join(' ')) {
      problems.push(`${signature}: after the migrations [${before.privileges.join(', ')}] may execute it, after ${fileOf(fn)} [${fn.privileges.join(', ')}]`);
    }
    if (fn.comment !== before.comment) {
      problems.push(`${signature}: its comment is ${JSON.stringify(before.comment)} after the migrations, ${JSON.stringify(fn.comment)} after ${fileOf(fn)}`);
    }
  }
  return problems;
}
