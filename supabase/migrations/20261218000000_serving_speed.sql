-- The ad decision's database time (issue 41's bench, 4,000 characters over 1,000 campaigns):
--
-- * A campaign's `served:` and `billed:` counters of the impression window are read on the
--   counters' key. Written as `period >= …`, the planner took the index on period alone once its
--   statistics lagged behind the counters written since, and read every campaign's counters of
--   the last 15 minutes to sum one campaign's: 850 rows and 2.5 ms of each decision in the bench.
--   A row comparison on (name, period) can only be answered by the key.
-- * The checks of lists of phrases (`phrases_fit`, `texts_fit`) are PL/pgSQL, which keeps its
--   plan for the session. As SQL functions with a subquery, never inlined, they were planned anew
--   for every row checked: a tenth of a millisecond of each decision's insert. Strict: a null
--   list is not checked, as before (the check was null then too).

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

create or replace function public.phrases_fit(p_phrases text[]) returns boolean
language plpgsql immutable strict set search_path = ''
as $$
begin
  return public.texts_fit(p_phrases, 20, 60);
end $$;

revoke all on function public.phrases_fit(text[]) from public;
grant execute on function public.phrases_fit(text[]) to anon, authenticated, sdk, service_role;

create or replace function public.sdk_campaign_creative(p_campaign_id uuid, p_advertiser text, p_daily_budget bigint, p_frequency_cap integer,
                                                        p_format text, p_app_id uuid, p_network_hash text, p_network_factor integer,
                                                        p_at timestamptz)
returns table (
  id           uuid,
  campaign_id  uuid,
  advertiser   text,
  headline     text,
  body         text,
  cta          text,
  image_url    text,
  video_url    text
)
language sql stable
as $$
  select cr.id, cr.campaign_id, p_advertiser, cr.headline, cr.body, cr.cta, cr.image_url, cr.video_url
  from public.creatives cr
  where cr.campaign_id = p_campaign_id and cr.format = p_format and cr.status = 'active'
    and public.sdk_paced_budget_left(
          (select coalesce(sum(k.used), 0)::bigint from public.sdk_counters k
           where k.name = 'budget:' || p_campaign_id and k.period = date_trunc('day', p_at, 'UTC'))
          + greatest(0, (select coalesce(sum(k.used), 0)::bigint from public.sdk_counters k
                         where k.name = 'served:' || p_campaign_id
                           and (k.name, k.period) >= ('served:' || p_campaign_id, public.sdk_promise_slot(p_at - interval '15 minutes')))
                        - (select coalesce(sum(k.used), 0)::bigint from public.sdk_counters k
                           where k.name = 'billed:' || p_campaign_id
                             and (k.name, k.period) >= ('billed:' || p_campaign_id, public.sdk_promise_slot(p_at - interval '15 minutes')))),
          p_daily_budget, public.sdk_day_share(p_at))
    and public.sdk_under_frequency_cap((select count(*) from (select from public.sdk_network_fills(p_app_id, p_network_hash, p_campaign_id, p_at)
                                                               limit p_frequency_cap::bigint * p_network_factor) f),
                                       p_frequency_cap, p_network_factor)
  order by random()
  limit 1
$$;

revoke all on function public.sdk_campaign_creative(uuid, text, bigint, integer, text, uuid, text, integer, timestamptz) from public, anon, authenticated;
grant execute on function public.sdk_campaign_creative(uuid, text, bigint, integer, text, uuid, text, integer, timestamptz) to sdk;

