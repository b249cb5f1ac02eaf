-- The pricing as the operator console (/ops) shows it (migration 20261213000100_pricing_in_production):
-- the values in force (`current`, with when they last changed) and the latest scheduled changes
-- (`changes`, newest first: what, from when, why, by whom, and when it was applied, null while
-- it waits). Refused to anyone but staff (public.is_staff).
create or replace function public.staff_pricing(p_limit integer default 50)
returns json
language plpgsql stable security definer set search_path = ''
as $$
begin
  if not public.is_staff() then
    raise exception 'staff only' using errcode = 'insufficient_privilege';
  end if;
  return json_build_object(
    'current', (select row_to_json(s) from public.pricing_settings s),
    'changes', (select coalesce(json_agg(r order by r.effective_at desc, r.id desc), '[]')
                from (select c.*, u.email as scheduled_by_email
                      from public.pricing_changes c left join public.users u on u.id = c.scheduled_by
                      order by c.effective_at desc, c.id desc
                      limit least(greatest(coalesce(p_limit, 50), 1), 200)) r));
end $$;

revoke all on function public.staff_pricing(integer) from public, anon, sdk;
grant execute on function public.staff_pricing(integer) to authenticated;
