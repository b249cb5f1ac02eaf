-- Conversions are written once: no role changes or deletes one, except as the cascade of its
-- advertiser's (or key's, or campaign's) deletion.
create or replace function public.conversions_refuse_change()
returns trigger
language plpgsql set search_path = ''
as $$
begin
  if pg_trigger_depth() > 1 then
    return case when tg_op = 'DELETE' then old else new end;
  end if;
  raise exception 'conversions are written once: % refused', lower(tg_op) using errcode = 'insufficient_privilege';
end $$;
revoke all on function public.conversions_refuse_change() from public, anon, authenticated, sdk;
