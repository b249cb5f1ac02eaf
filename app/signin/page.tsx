import type { Metadata } from 'next';
import Link from 'next/link';
import { cookies, headers } from 'next/headers';
import { redirect } from 'next/navigation';
import { configuredProviders } from '@/lib/identity/auth/options';
import { safeCallbackUrl, signInErrorMessage } from '@/lib/identity/auth/messages';
import { signInFromForm } from '@/lib/identity/auth/signin';
import { services } from '@/lib/services';
import { AuthCard } from '../_components/auth/auth-card';
import { Alert } from '../_components/ui/alert';
import { Button } from '../_components/ui/button';
import { Field, Input } from '../_components/ui/input';
import { ProviderButtons } from './provider-buttons';

export const metadata: Metadata = { title: 'Sign in', robots: { index: false, follow: false } };
export const dynamic = 'force-dynamic';

type Search = Promise<Record<string, string | string[] | undefined>>;
const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

async function signIn(form: FormData) {
  'use server';
  const outcome = await signInFromForm(form, await headers(), services());
  if (outcome.ok) for (const cookie of outcome.cookies) (await cookies()).set(cookie.name, cookie.value, cookie.options);
  redirect(outcome.location);
}

export default async function SignInPage({ searchParams }: { searchParams: Search }) {
  const params = await searchParams;
  const callbackUrl = safeCallbackUrl(params.callbackUrl);
  const error = signInErrorMessage(one(params.error));
  return (
    <AuthCard
      title="Sign in to Monetize"
      footer={
        <>
          New here? <Link href={`/signup?${new URLSearchParams({ callbackUrl })}`}>Create an account</Link>
        </>
      }
    >
      {error && <Alert tone="error">{error}</Alert>}
      <form action={signIn} className="grid gap-4">
        <input type="hidden" name="callbackUrl" value={callbackUrl} />
        <Field label="Email" htmlFor="email">
          <Input id="email" name="email" type="email" autoComplete="email" required defaultValue={one(params.email) ?? ''} maxLength={254} />
        </Field>
        <Field label="Password" htmlFor="password">
          <Input id="password" name="password" type="password" autoComplete="current-password" required maxLength={200} />
        </Field>
        <Button type="submit" className="w-full">
          Sign in
        </Button>
      </form>
      <ProviderButtons callbackUrl={callbackUrl === '/' ? '/console' : callbackUrl} providers={configuredProviders()} />
    </AuthCard>
  );
}
