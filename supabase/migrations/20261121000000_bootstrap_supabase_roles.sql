-- Supabase compatibility (ARCHITECTURE.md, Data): on Supabase the roles `anon`, `authenticated`,
-- `service_role` and the function `auth.uid()` already exist, and this migration changes nothing.
-- On PGlite or a plain PostgreSQL it creates the same, and only what is absent.

do $$
begin
  if not exists (select 1 from pg_roles where rolname = 'anon') then
    create role anon nologin noinherit;
  end if;
  if not exists (select 1 from pg_roles where rolname = 'authenticated') then
    create role authenticated nologin noinherit;
  end if;
  if not exists (select 1 from pg_roles where rolname = 'service_role') then
    create role service_role nologin noinherit bypassrls;
  end if;
end
$$;

-- The connection's own role must be able to `set local role` to each of them.
do $$
begin
  execute format('grant anon, authenticated, service_role to %I', current_user);
exception when others then
  -- On Supabase the grants exist already and the owner may not re-grant them.
  null;
end
$$;

create schema if not exists auth;
grant usage on schema auth to anon, authenticated, service_role;
grant usage on schema public to anon, authenticated, service_role;

do $$
begin
  if not exists (
    select 1 from pg_proc p join pg_namespace n on n.oid = p.pronamespace
    where n.nspname = 'auth' and p.proname = 'uid'
  ) then
    -- Reads the `sub` claim of the transaction-local `request.jwt.claims` setting. After a
    -- transaction ends the setting is '' rather than NULL, hence the nullif.
    execute $fn$
      create function auth.uid() returns uuid
      language sql stable
      as $body$
        select nullif(
          nullif(current_setting('request.jwt.claims', true), '')::json ->> 'sub',
          ''
        )::uuid
      $body$
    $fn$;
  end if;
end
$$;

grant execute on function auth.uid() to anon, authenticated, service_role;
