import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../lib/platform/db/engine';
import { testEngines } from '../helpers/db';
import { compareFunctionsWithFiles, readSchemaFiles, type SchemaFile } from '../helpers/sql-schemas';

/**
 * Every SQL function has one home (supabase/schemas/README.md): its current definition, with its
 * grants, in `supabase/schemas/functions/<schema>.<name>.sql`. On every engine, the database the
 * migrations make must hold exactly the functions those files define, as they define them. So a
 * migration that changes a function without its file fails here, and so does a file edited
 * without a migration; the tests after the first show that each kind of drift is caught.
 */

const VIEWABLE = 'public.sdk_viewable(text, numeric, numeric, bigint)';

/** The files, with one changed by `edit`. */
function edited(files: SchemaFile[], name: string, edit: (sql: string) => string): SchemaFile[] {
  const file = files.find((f) => f.name === name);
  if (!file) throw new Error(`no file ${name}`);
  const sql = edit(file.sql);
  if (sql === file.sql) throw new Error(`the edit changed nothing in ${name}`);
  return files.map((f) => (f === file ? { name, sql } : f));
}

for (const engine of testEngines()) {
  describe(`supabase/schemas on ${engine.name}`, () => {
    let db: Engine;
    const files = readSchemaFiles();

    beforeAll(async () => {
      db = await engine.open();
    });
    afterAll(async () => {
      await db?.close();
    });

    it('holds the current definition and grants of every function the migrations create, and nothing else', async () => {
      expect(await compareFunctionsWithFiles(db, files)).toEqual([]);
      // The comparison covered the money path and both schemas, not an empty list.
      const names = files.map((f) => f.name);
      expect(names).toEqual(expect.arrayContaining(['auth.uid.sql', 'public.sdk_serve_ad.sql', 'public.sdk_record_events.sql', 'public.account_apps.sql']));
    });

    it('fails when a migration changes a function and its file is not updated', async () => {
      const problems = await compareFunctionsWithFiles(db, files, (tx) =>
        tx.exec(`create or replace function public.sdk_viewable(p_format text, p_share numeric, p_seconds numeric, p_area bigint)
                 returns boolean language sql immutable as $$ select coalesce(p_seconds >= 1 and p_share >= 0.4, false) $$`),
      );
      expect(problems).toEqual([
        expect.stringMatching(
          /^public\.sdk_viewable\(text, numeric, numeric, bigint\): public\.sdk_viewable\.sql differs from the migrated definition, line \d+/,
        ),
      ]);
    });

    it('fails when a file is edited without a migration', async () => {
      const changed = edited(files, 'public.sdk_viewable.sql', (sql) => sql.replace('then 0.3 else 0.5 end', 'then 0.3 else 0.4 end'));
      const problems = await compareFunctionsWithFiles(db, changed);
      expect(problems).toHaveLength(1);
      expect(problems[0]).toContain(`${VIEWABLE}: public.sdk_viewable.sql differs from the migrated definition`);
      expect(problems[0]).toContain('0.4 end');
    });

    it('fails when who may call a function changes on one side only', async () => {
      const granted = await compareFunctionsWithFiles(db, files, (tx) =>
        tx.exec('grant execute on function public.sdk_serve_ad(uuid, text, text[], uuid, text, text, integer, bigint, text, uuid[], numeric[], jsonb) to anon'),
      );
      expect(granted).toEqual([
        expect.stringMatching(
          /^public\.sdk_serve_ad\(uuid, text, text\[\], uuid, text, text, integer, bigint, text, uuid\[\], numeric\[\], jsonb\): after the migrations \[.*anon:EXECUTE.*\] may execute it/,
        ),
      ]);
      const forgotten = edited(files, 'public.sdk_serve_ad.sql', (sql) => sql.replace(/^revoke all on function public\.sdk_serve_ad.*$/m, ''));
      expect(await compareFunctionsWithFiles(db, forgotten)).toEqual([
        expect.stringMatching(
          /^public\.sdk_serve_ad\(uuid, text, text\[\], uuid, text, text, integer, bigint, text, uuid\[\], numeric\[\], jsonb\): after the migrations \[owner:EXECUTE, sdk:EXECUTE\] may execute it, after public\.sdk_serve_ad\.sql \[.*public:EXECUTE/,
        ),
      ]);
    });

    it('fails on a function without a file, and on a file for a function no migration creates', async () => {
      const orphan = await compareFunctionsWithFiles(db, files, (tx) =>
        tx.exec('create function public.sdk_orphan() returns integer language sql as $$ select 1 $$'),
      );
      expect(orphan).toEqual(['public.sdk_orphan(): has no file (supabase/schemas/functions/public.sdk_orphan.sql)']);
      const ghost = [
        ...files,
        { name: 'public.sdk_ghost.sql', sql: 'create or replace function public.sdk_ghost() returns integer language sql as $$ select 1 $$;' },
      ];
      expect(await compareFunctionsWithFiles(db, ghost)).toEqual([
        'public.sdk_ghost.sql: no migration creates its function: add the migration, or delete the file',
      ]);
    });

    it('fails on a file that defines another function than its name says, or another overload, or cannot run', async () => {
      const other = edited(files, 'public.sdk_app_id.sql', (sql) =>
        sql.replace('create or replace function public.sdk_app_id()', 'create or replace function public.sdk_user_id()'),
      );
      expect(await compareFunctionsWithFiles(db, other)).toContain('public.sdk_app_id.sql: creates public.sdk_user_id, not the function its name says');
      const overload = edited(files, 'public.sdk_viewable.sql', (sql) => sql.replace('p_area bigint)', 'p_area integer)'));
      expect(await compareFunctionsWithFiles(db, overload)).toEqual([
        "public.sdk_viewable(text, numeric, numeric, integer): public.sdk_viewable.sql creates it, but no migration does (another argument list than the migrations' function?)",
      ]);
      const broken = edited(files, 'public.sdk_viewable.sql', (sql) => sql.replace('returns boolean', 'returns integer'));
      // The file's grants did not run either: who may call it differs too.
      expect(await compareFunctionsWithFiles(db, broken)).toEqual([
        expect.stringMatching(/^public\.sdk_viewable\.sql: fails on the migrated database: /),
        expect.stringMatching(/^public\.sdk_viewable\(text, numeric, numeric, bigint\): after the migrations \[.*sdk:EXECUTE\]/),
      ]);
      const plain = edited(files, 'public.sdk_viewable.sql', (sql) => sql.replace('create or replace function', 'create function'));
      expect(await compareFunctionsWithFiles(db, plain)).toEqual([
        expect.stringMatching(/^public\.sdk_viewable\.sql: "create function public\.sdk_viewable\(" must be "create or replace"/),
        expect.stringMatching(/^public\.sdk_viewable\(text, numeric, numeric, bigint\): after the migrations \[.*sdk:EXECUTE\]/),
      ]);
    });

    it('leaves the database as it found it', async () => {
      await compareFunctionsWithFiles(db, files, (tx) => tx.exec('create function public.sdk_orphan() returns integer language sql as $$ select 1 $$'));
      const [row] = await db.query<{ n: number }>("select count(*)::int as n from pg_proc where proname = 'sdk_orphan'");
      expect(row!.n).toBe(0);
    });
  });
}
