-- The owner of the SDK request's app, from `request.jwt.claims`: the policies that let the `sdk`
-- role write events, consents and data pin the rows' owner to it.
create or replace function public.sdk_user_id() returns uuid
language sql stable
as $$
  select nullif(nullif(current_setting('request.jwt.claims', true), '')::json ->> 'user_id', '')::uuid
$$;

revoke all on function public.sdk_user_id() from public, anon, authenticated;
grant execute on function public.sdk_user_id() to sdk, service_role;
