-- Whether a list of short texts fits: a flat list of at most `p_most`, none null, each of 1 to
-- `p_longest` characters without spaces around it. The check of campaigns' phrases
-- (public.phrases_fit) and of the advertisers an app blocks by name (migration 20261216000000_ad_context).
create or replace function public.texts_fit(p_texts text[], p_most integer, p_longest integer) returns boolean
language sql immutable set search_path = ''
as $$
  select coalesce(array_ndims(p_texts), 1) = 1
     and cardinality(p_texts) <= p_most
     and array_position(p_texts, null) is null
     and coalesce((select bool_and(length(t) between 1 and p_longest and t = btrim(t)) from unnest(p_texts) t), true)
$$;

revoke all on function public.texts_fit(text[], integer, integer) from public;
grant execute on function public.texts_fit(text[], integer, integer) to anon, authenticated, sdk, service_role;
