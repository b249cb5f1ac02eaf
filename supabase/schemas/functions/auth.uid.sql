-- The signed-in user: the `sub` claim of the transaction-local `request.jwt.claims` setting
-- (lib/db asUser sets it with the role). After a transaction ends the setting is '' rather than
-- NULL, hence the nullif.
--
-- On Supabase this function is Supabase's own and the bootstrap migration
-- (20261121000000_bootstrap_supabase_roles) leaves it alone: it creates this one only where no
-- auth.uid() exists (PGlite, a plain PostgreSQL). Never run this file against Supabase.
create or replace function auth.uid() returns uuid
language sql stable
as $body$
        select nullif(
          nullif(current_setting('request.jwt.claims', true), '')::json ->> 'sub',
          ''
        )::uuid
      $body$;

grant execute on function auth.uid() to anon, authenticated, service_role;
