-- Whether a list of short texts fits: a flat list of at most `p_most`, none null, each of 1 to
-- `p_longest` characters without spaces around it. The check of campaigns' phrases
-- (public.phrases_fit) and of the advertisers an app blocks by name (migration 20261216000000_ad_context).
-- PL/pgSQL, which keeps its plan for the session: as a SQL function with a subquery (never inlined)
-- it was planned anew for every row checked, a tenth of a millisecond of each ad decision's insert
-- (migration 20261218000000_serving_speed). Strict: a null list is not checked (null, as before).
create or replace function public.texts_fit(p_texts text[], p_most integer, p_longest integer) returns boolean
language plpgsql immutable strict set search_path = ''
as $$
declare
  v_text text;
begin
  if coalesce(array_ndims(p_texts), 1) <> 1 or cardinality(p_texts) > p_most then
    return false;
  end if;
  foreach v_text in array p_texts loop
    if v_text is null or length(v_text) not between 1 and p_longest or v_text <> btrim(v_text) then
      return false;
    end if;
  end loop;
  return true;
end $$;

revoke all on function public.texts_fit(text[], integer, integer) from public;
grant execute on function public.texts_fit(text[], integer, integer) to anon, authenticated, sdk, service_role;
