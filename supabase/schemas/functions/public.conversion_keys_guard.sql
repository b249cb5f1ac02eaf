-- A key once revoked stays revoked, and nothing but its revocation and last use ever changes.
create or replace function public.conversion_keys_guard()
returns trigger
language plpgsql set search_path = ''
as $$
begin
  if old.revoked_at is not null and new.revoked_at is distinct from old.revoked_at then
    raise exception 'a revoked conversions key stays revoked' using errcode = 'check_violation';
  end if;
  if (new.id, new.advertiser_id, new.name, new.key_prefix, new.key_last4, new.key_hash, new.created_at)
     is distinct from (old.id, old.advertiser_id, old.name, old.key_prefix, old.key_last4, old.key_hash, old.created_at) then
    raise exception 'only a conversions key''s revocation and last use change' using errcode = 'check_violation';
  end if;
  return new;
end $$;
revoke all on function public.conversion_keys_guard() from public, anon, authenticated, sdk;
