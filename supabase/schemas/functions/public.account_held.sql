-- Whether user `p_user`'s account is on hold (migration 20261213000500_reversals): money it was
-- credited by card was taken back (a refund, a dispute, a failed asynchronous payment) and the
-- operator has not released it yet. While it is, its campaigns do not serve (public.campaigns_funds_guard),
-- it buys no data license (public.data_license_buy) and makes no download link (lib/data/buyers/downloads.ts).
-- Runs as its caller: a user sees only their own hold under row-level security.
create or replace function public.account_held(p_user uuid)
returns boolean
language sql stable set search_path = ''
as $$
  select exists (select 1 from public.account_holds h where h.user_id = p_user and h.released_at is null)
$$;

revoke all on function public.account_held(uuid) from public, anon, sdk;
grant execute on function public.account_held(uuid) to authenticated, service_role;
