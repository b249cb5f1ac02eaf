-- Whether a list of a campaign's phrases (context hints, excluded phrases) fits: a flat list of at
-- most 20, none null, each of 1 to 60 characters without spaces around it (migration 20261215000100_campaign_context).
create or replace function public.phrases_fit(p_phrases text[]) returns boolean
language sql immutable set search_path = ''
as $$
  select coalesce(array_ndims(p_phrases), 1) = 1
     and cardinality(p_phrases) <= 20
     and array_position(p_phrases, null) is null
     and coalesce((select bool_and(length(p) between 1 and 60 and p = btrim(p)) from unnest(p_phrases) p), true)
$$;

revoke all on function public.phrases_fit(text[]) from public;
grant execute on function public.phrases_fit(text[]) to anon, authenticated, sdk, service_role;
