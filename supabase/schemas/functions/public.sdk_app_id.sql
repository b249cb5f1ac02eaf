-- The app the SDK request's key (or decision token) belongs to, from `request.jwt.claims`
-- (`{"role": "sdk", "app_id": …, "user_id": …}`, lib/identity/keys/access.ts). Every policy of the `sdk`
-- role reads it: the role sees and writes its own app's rows and nothing else.
create or replace function public.sdk_app_id() returns uuid
language sql stable
as $$
  select nullif(nullif(current_setting('request.jwt.claims', true), '')::json ->> 'app_id', '')::uuid
$$;

revoke all on function public.sdk_app_id() from public, anon, authenticated;
grant execute on function public.sdk_app_id() to sdk, service_role;
