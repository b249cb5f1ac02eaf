-- What an advertiser may do to a creative directly (migration 20261207000000_advertisers): a
-- trigger before each insert and update made as `authenticated` (row-level security has already
-- kept them to their own campaigns' creatives). A new creative, and one whose text, media or
-- landing page changes, goes to review (`in_review`, any rejection cleared); its advertiser may
-- pause an approved one and resume it, nothing else. Approval and rejection are the operator's
-- (public.staff_creative_review).
create or replace function public.creatives_guard()
returns trigger
language plpgsql
set search_path = ''
as $$
begin
  if current_user <> 'authenticated' then
    return new;
  end if;
  if tg_op = 'UPDATE' and new.status is distinct from old.status
     and not (old.status in ('active', 'paused') and new.status in ('active', 'paused')) then
    raise exception 'a creative cannot go from % to % here', old.status, new.status using errcode = 'check_violation', constraint = 'creatives_status_move';
  end if;
  if tg_op = 'INSERT'
     or (new.headline, new.body, new.cta, new.image_url, new.video_url, new.landing_url, new.width, new.height, new.duration_ms)
        is distinct from (old.headline, old.body, old.cta, old.image_url, old.video_url, old.landing_url, old.width, old.height, old.duration_ms) then
    new.status := 'in_review';
    new.rejection_reason := null;
    new.reviewed_at := null;
  elsif new.rejection_reason is distinct from old.rejection_reason or new.reviewed_at is distinct from old.reviewed_at then
    raise exception 'review is not set directly' using errcode = 'insufficient_privilege';
  end if;
  new.updated_at := now();
  return new;
end $$;

revoke all on function public.creatives_guard() from public, anon, authenticated, sdk;
