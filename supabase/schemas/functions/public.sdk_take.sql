-- The bounded counters of the money path (`public.sdk_counters`, migration 20261203000000): takes
-- up to `p_items` items of `p_unit` each from the counter `p_name` of the period `p_period`
-- (created at zero), as long as what the counter has used is below `p_limit`, and answers how
-- many it took. The item that crosses the limit is still taken, so a budget is overrun by at most
-- one item's price, never more. The counter's row is locked from the first statement to the end
-- of the caller's transaction: two callers taking from one counter take in turn, and each sees
-- what the other took. Callers take counters in one order (lib/sdk: client, publisher, budgets by
-- campaign, promises by campaign and slot), so two never wait on each other in a circle.
create or replace function public.sdk_take(p_name text, p_period timestamptz, p_items integer, p_unit bigint, p_limit bigint)
returns integer
language plpgsql volatile security invoker set search_path = ''
as $$
declare
  v_used bigint;
  v_taken integer;
begin
  if p_items <= 0 then
    return 0;
  end if;
  -- `do update` on the row as it is now, not as this statement's snapshot saw it: the lock, and
  -- the latest count.
  insert into public.sdk_counters as c (name, period, used) values (p_name, p_period, 0)
  on conflict (name, period) do update set used = c.used
  returning c.used into v_used;
  v_taken := case when v_used >= p_limit then 0
                  else least(p_items, ceil((p_limit - v_used)::numeric / greatest(p_unit, 1)))::integer end;
  if v_taken > 0 then
    update public.sdk_counters set used = used + v_taken * p_unit where name = p_name and period = p_period;
  end if;
  return v_taken;
end $$;

revoke all on function public.sdk_take(text, timestamptz, integer, bigint, bigint) from public, anon, authenticated;
grant execute on function public.sdk_take(text, timestamptz, integer, bigint, bigint) to sdk;
