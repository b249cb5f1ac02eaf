-- A buyer acknowledges a deletion notice of theirs (migration 20261209000000_data_buyers): they
-- deleted the records it names. Recorded once, with when; asked again, it changes nothing.
-- Answers `{ok, acknowledged_at}` or `{ok: false, error: 'not_found'}` (not theirs, or none).
create or replace function public.data_deletion_notice_acknowledge(p_notice uuid)
returns json
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v_at timestamptz;
begin
  update public.data_deletion_notices n set acknowledged_at = coalesce(n.acknowledged_at, now())
  where n.id = p_notice and n.buyer_id = auth.uid()
  returning n.acknowledged_at into v_at;
  if v_at is null then
    return json_build_object('ok', false, 'error', 'not_found');
  end if;
  return json_build_object('ok', true, 'acknowledged_at', v_at);
end $$;

revoke all on function public.data_deletion_notice_acknowledge(uuid) from public, anon, sdk, service_role;
grant execute on function public.data_deletion_notice_acknowledge(uuid) to authenticated;
