-- Whether the caller is staff (the operator), signed in with a second factor (migration
-- 20261206000000_payouts): a member of `staff_members` (granted only in the database), whose
-- claims say `aal2` (authenticator assurance level 2: the password and a TOTP code, NIST SP
-- 800-63B; the claim Supabase Auth sets after multi-factor sign-in). Every staff function checks it
-- first. Security definer: nobody else reads `staff_members`.
create or replace function public.is_staff()
returns boolean
language sql stable security definer set search_path = ''
as $$
  select coalesce(nullif(current_setting('request.jwt.claims', true), '')::json ->> 'aal' = 'aal2', false)
         and exists (select 1 from public.staff_members s where s.user_id = auth.uid())
$$;

revoke all on function public.is_staff() from public, anon, sdk;
grant execute on function public.is_staff() to authenticated, service_role;
