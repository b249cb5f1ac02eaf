-- What campaign `p_campaign` was billed on the day `p_period`, in micro-dollars: what its budget's
-- counter (`budget:<campaign>`) gave out, less what the leases that took it have not spent
-- (public.sdk_take_budget).
-- It reads tables, so PostgreSQL does not inline it: a click calls it once (sdk_record_events),
-- not a statement for each row. Executable by `sdk`, the role the compositions run as, and nobody
-- else.
create or replace function public.sdk_budget_spent(p_campaign uuid, p_period timestamptz)
returns bigint
language sql stable
as $$
  select coalesce((select k.used from public.sdk_counters k where k.name = 'budget:' || p_campaign and k.period = p_period), 0)
         - coalesce((select sum(l.granted - l.spent) from public.sdk_budget_leases l
                     where l.campaign_id = p_campaign and l.period = p_period), 0)::bigint
$$;

revoke all on function public.sdk_budget_spent(uuid, timestamptz) from public, anon, authenticated;
grant execute on function public.sdk_budget_spent(uuid, timestamptz) to sdk;
