import type { Metadata } from 'next';
import { cookies, headers } from 'next/headers';
import { redirect } from 'next/navigation';
import { staffSignIn } from '@/lib/identity/auth/staff';
import { services } from '@/lib/services';
import { AuthCard } from '../../_components/auth/auth-card';
import { Alert } from '../../_components/ui/alert';
import { Button } from '../../_components/ui/button';
import { Field, Input } from '../../_components/ui/input';

export const metadata: Metadata = { title: 'Operator sign-in', robots: { index: false, follow: false } };
export const dynamic = 'force-dynamic';

type Search = Promise<Record<string, string | string[] | undefined>>;

const MESSAGES: Record<string, string> = {
  CredentialsSignin: 'That did not work: check the email, the password and the code from your authenticator app.',
  TooManyAttempts: 'Too many attempts. Wait a few minutes, then try again.',
  Locked: 'Sign-in to this account is locked after too many wrong authentication codes. An administrator unlocks it on the server (npm run staff:unlock).',
  signed_out: 'Signed out of the operator console.',
};

async function signIn(form: FormData) {
  'use server';
  const outcome = await staffSignIn(form, await headers(), services());
  if (!outcome.ok) redirect(`/ops/signin?${new URLSearchParams({ error: outcome.error })}`);
  (await cookies()).set(outcome.cookie.name, outcome.cookie.value, outcome.cookie.options);
  redirect('/ops');
}

export default async function OpsSignInPage({ searchParams }: { searchParams: Search }) {
  const params = await searchParams;
  const code = typeof params.error === 'string' ? params.error : undefined;
  const message = code ? MESSAGES[code] : undefined;
  return (
    <AuthCard title="Operator sign-in" intro="For the platform’s staff: your password and the six-digit code of your authenticator app, both.">
      {message && <Alert tone={code === 'signed_out' ? 'success' : 'error'}>{message}</Alert>}
      <form action={signIn} className="grid gap-4">
        <Field label="Email" htmlFor="email">
          <Input id="email" name="email" type="email" autoComplete="username" required maxLength={254} />
        </Field>
        <Field label="Password" htmlFor="password">
          <Input id="password" name="password" type="password" autoComplete="current-password" required maxLength={200} />
        </Field>
        <Field label="Authentication code" htmlFor="code">
          <Input id="code" name="code" inputMode="numeric" autoComplete="one-time-code" pattern="[0-9 ]{6,7}" required maxLength={7} />
        </Field>
        <Button type="submit" className="w-full">
          Sign in
        </Button>
      </form>
    </AuthCard>
  );
}
