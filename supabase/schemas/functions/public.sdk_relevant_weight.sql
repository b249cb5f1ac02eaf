-- A campaign's weight in the draw of a request with a conversation: its weight without one
-- (public.sdk_draw_weight) times its relevance squared (DRAW_RELEVANCE_POWER in
-- lib/ads/relevance/decide.ts), so a small campaign that fits well wins over a large one that
-- barely does: relevance 0.91 weighs 2.6 times 0.56.
create or replace function public.sdk_relevant_weight(p_weight bigint, p_relevance numeric)
returns numeric
language sql immutable
as $$
  select p_weight * p_relevance * p_relevance
$$;

revoke all on function public.sdk_relevant_weight(bigint, numeric) from public, anon, authenticated;
grant execute on function public.sdk_relevant_weight(bigint, numeric) to sdk;
