-- What awaits the operator on the data side (migration 20261209000000_data_buyers): exclusive
-- licenses awaiting review, oldest first, each with its buyer, what it covers and its price.
-- Refused to anyone but staff (public.is_staff).
create or replace function public.staff_data_queue(p_limit integer)
returns json
language plpgsql stable security definer set search_path = ''
as $$
begin
  if not public.is_staff() then
    raise exception 'staff only' using errcode = 'insufficient_privilege';
  end if;
  return json_build_object(
    'licenses', (select coalesce(json_agg(r order by r.requested_at), '[]')
                 from (select l.id, l.listing, l.filter, l.records, l.bytes, l.price_micro, l.requested_at, u.email, b.company, b.intended_use
                       from public.data_licenses l join public.users u on u.id = l.buyer_id
                       left join public.buyer_profiles b on b.user_id = l.buyer_id
                       where l.status = 'pending_review'
                       order by l.requested_at limit least(greatest(coalesce(p_limit, 50), 1), 200)) r));
end $$;

revoke all on function public.staff_data_queue(integer) from public, anon, sdk;
grant execute on function public.staff_data_queue(integer) to authenticated;
