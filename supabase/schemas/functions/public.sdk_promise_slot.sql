-- The five minutes `p_at` falls in: what serving promised and billing took are counted per slot
-- (`served:<campaign>` and `billed:<campaign>` counters, kept by the roll-up), and a promise older
-- than the impression window (15 minutes, `too_late` in sdk_event_reason) no longer counts, so pacing reads
-- the slots of the last 15 to 20 minutes.
-- A rule of the money path (migration 20261129000000_rules_one_by_one): inlined where called.
create or replace function public.sdk_promise_slot(p_at timestamptz)
returns timestamptz
language sql immutable
as $$
  select date_bin(interval '5 minutes', p_at, timestamptz '2000-01-01 00:00:00+00')
$$;

revoke all on function public.sdk_promise_slot(timestamptz) from public, anon, authenticated;
grant execute on function public.sdk_promise_slot(timestamptz) to sdk;
