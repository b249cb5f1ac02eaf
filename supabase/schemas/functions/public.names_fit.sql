-- The advertisers an app blocks, by name: at most 50, each 1 to 100 characters with no space
-- around it, no null and no nested list (a check constraint of public.apps).
create or replace function public.names_fit(p_names text[]) returns boolean
language sql immutable set search_path = ''
as $$
  select coalesce(array_ndims(p_names), 1) = 1
     and cardinality(p_names) <= 50
     and array_position(p_names, null) is null
     and coalesce((select bool_and(length(n) between 1 and 100 and n = btrim(n)) from unnest(p_names) n), true)
$$;

revoke all on function public.names_fit(text[]) from public;
grant execute on function public.names_fit(text[]) to anon, authenticated, sdk, service_role;
