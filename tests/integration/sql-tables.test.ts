import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../lib/platform/db/engine';
import { testEngines } from '../helpers/db';
import { compareTablesWithFiles, readTableFiles, type TableFile } from '../helpers/sql-tables';

/**
 * Every table has a file saying what it is now (supabase/schemas/README.md, Tables):
 * `supabase/schemas/tables/<schema>.<table>.sql`, written by `npm run db:tables` from a migrated
 * PGlite. On every engine, the database the migrations make must print exactly those files. So a
 * migration that changes a table fails here until the files are regenerated, and so does a file
 * edited by hand; the tests after the first show that each kind of drift is caught.
 */

/** The files, with one changed by `edit`. */
function edited(files: TableFile[], name: string, edit: (sql: string) => string): TableFile[] {
  const file = files.find((f) => f.name === name);
  if (!file) throw new Error(`no file ${name}`);
  const sql = edit(file.sql);
  if (sql === file.sql) throw new Error(`the edit changed nothing in ${name}`);
  return files.map((f) => (f === file ? { name, sql } : f));
}

const PAYOUTS = 'public.payouts: supabase/schemas/tables/public.payouts.sql differs from the migrated table, line';

for (const engine of testEngines()) {
  describe(`supabase/schemas/tables on ${engine.name}`, () => {
    let db: Engine;
    const files = readTableFiles();

    beforeAll(async () => {
      db = await engine.open();
    });
    afterAll(async () => {
      await db?.close();
    });

    it('holds the current state of every table the migrations create, and nothing else', async () => {
      expect(await compareTablesWithFiles(db, files)).toEqual([]);
      // The comparison covered the tables, not an empty list, and what each file says.
      expect(files.length).toBeGreaterThan(50);
      const payouts = files.find((f) => f.name === 'public.payouts.sql')!.sql;
      for (const part of [
        'create table public.payouts (',
        '  amount_micro bigint not null,',
        'constraint payouts_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE',
        'CREATE INDEX payouts_user_id ON public.payouts USING btree (user_id, requested_at DESC);',
        'alter table public.payouts force row level security;',
        'create policy "Publishers can read their own payouts" on public.payouts',
        'grant select on table public.payouts to authenticated;',
      ])
        expect(payouts).toContain(part);
    });

    it('fails, naming the table and the line, when a migration changes a table and its file is not regenerated', async () => {
      const column = await compareTablesWithFiles(db, files, (tx) => tx.exec('alter table public.payouts add column note text'));
      expect(column).toEqual([
        `${PAYOUTS} 19: after the migrations "  note text,", in the file "  constraint payouts_pkey PRIMARY KEY (id),": run npm run db:tables`,
      ]);

      const typed = await compareTablesWithFiles(db, files, (tx) => tx.exec('alter table public.payouts alter column amount_micro type numeric(16,2)'));
      expect(typed).toEqual([
        `${PAYOUTS} 9: after the migrations "  amount_micro numeric(16,2) not null,", in the file "  amount_micro bigint not null,": run npm run db:tables`,
      ]);

      const checked = await compareTablesWithFiles(db, files, (tx) => tx.exec('alter table public.payouts drop constraint payouts_rail_check'));
      expect(checked).toEqual([
        expect.stringMatching(new RegExp(`^${PAYOUTS} \\d+: after the migrations ".*payouts_reference_check.*", in the file ".*payouts_rail_check`)),
      ]);
    });

    it('fails when row-level security, a policy, an index, a trigger or a grant changes', async () => {
      const changes = [
        ['alter table public.payouts no force row level security', '"alter table public.payouts force row level security;"'],
        ['alter policy "Publishers can read their own payouts" on public.payouts to authenticated, sdk', 'as permissive for select to authenticated, sdk'],
        ['drop index public.payouts_user_id', 'CREATE INDEX payouts_user_id'],
        [
          'create trigger payouts_touch before update on public.payouts for each row execute function public.append_only_refuse_change()',
          'CREATE TRIGGER payouts_touch',
        ],
        ['grant insert on public.payouts to authenticated', 'grant select, insert on table public.payouts to authenticated;'],
      ];
      for (const [statement, line] of changes) {
        const problems = await compareTablesWithFiles(db, files, (tx) => tx.exec(statement!));
        expect(problems, statement).toHaveLength(1);
        expect(problems[0], statement).toContain(PAYOUTS);
        expect(problems[0], statement).toContain(line);
      }
    });

    it('fails when a file is edited by hand', async () => {
      const changed = edited(files, 'public.payouts.sql', (sql) => sql.replace('  rail text not null,', "  rail text not null default 'manual'::text,"));
      expect(await compareTablesWithFiles(db, changed)).toEqual([
        `${PAYOUTS} 13: after the migrations "  rail text not null,", in the file "  rail text not null default 'manual'::text,": run npm run db:tables`,
      ]);
    });

    it('fails on a table without a file, on a file without a table, and on a misnamed file', async () => {
      const orphan = await compareTablesWithFiles(db, files, (tx) => tx.exec('create table public.orphan (id integer primary key)'));
      expect(orphan).toEqual(['public.orphan: has no file (supabase/schemas/tables/public.orphan.sql): run npm run db:tables']);
      const ghost = [...files, { name: 'public.ghost.sql', sql: 'create table public.ghost (id integer);\n' }];
      expect(await compareTablesWithFiles(db, ghost)).toEqual(['public.ghost.sql: no migration creates its table: run npm run db:tables, which deletes it']);
      const misnamed = [...files, { name: 'payouts.sql', sql: '' }];
      expect(await compareTablesWithFiles(db, misnamed)).toEqual(['payouts.sql: a file is named <schema>.<table>.sql, with the schema public or auth']);
    });

    it('fails on a relation the files cannot describe', async () => {
      const view = await compareTablesWithFiles(db, files, (tx) => tx.exec('create view public.payout_view as select id from public.payouts'));
      expect(view).toEqual(['public.payout_view: a view, which these files do not describe: give it a file and a check of its own']);
    });

    it('leaves the database as it found it', async () => {
      await compareTablesWithFiles(db, files, (tx) => tx.exec('create table public.orphan (id integer primary key)'));
      const [row] = await db.query<{ n: number }>("select count(*)::int as n from pg_class where relname = 'orphan'");
      expect(row!.n).toBe(0);
    });
  });
}
