-- GET /api/v1/me/licenses and the MCP tool `list_my_licenses` (scope licenses:read, migration
-- 20261210000000_account_licenses): the caller's funds as a data buyer, exactly, in micro-dollars
-- (public.buyer_funds: the balance of their `buyer` ledger account, what their exclusive licenses
-- waiting for review reserve of it, and what is left), and their data licenses, newest first,
-- each with how many of the caller's deletion notices name it and are not acknowledged yet. A
-- user who is not a data buyer has no licenses and no buyer account: an empty list and zeros.
-- Like the other account reads it runs as its caller, so row-level security alone decides whose
-- licenses and notices these are, and it names no user: the funds are read for the one profile
-- row the caller sees, their own, and public.buyer_funds answers its caller alone.
create or replace function public.account_licenses() returns json
language plpgsql stable security invoker set search_path = ''
as $$
begin
  return (select json_build_object(
            'id', u.id,
            'funds', public.buyer_funds(u.id),
            'licenses', (select coalesce(json_agg(r order by r.requested_at desc, r.id), '[]')
                         from (select l.id, l.listing, l.exclusive, l.status, l.filter, l.records, l.bytes, l.units, l.price_micro,
                                      l.terms_version, l.requested_at, l.starts_at, l.expires_at, l.rejection_reason,
                                      coalesce(k.unacknowledged, 0)::int as unacknowledged_deletion_notices
                               from public.data_licenses l
                               left join (select x.license_id, count(distinct n.id) filter (where n.acknowledged_at is null) as unacknowledged
                                          from public.data_deletion_notices n cross join lateral unnest(n.license_ids) as x(license_id)
                                          group by x.license_id) k on k.license_id = l.id) r))
          from public.users u);
end $$;

revoke execute on function public.account_licenses() from public, anon;
grant execute on function public.account_licenses() to authenticated;
