import type { Metadata } from 'next';
import Link from 'next/link';
import { cookies, headers } from 'next/headers';
import { redirect } from 'next/navigation';
import { configuredProviders } from '@/lib/auth/options';
import { safeCallbackUrl, signInErrorMessage } from '@/lib/auth/messages';
import { signInFromForm } from '@/lib/auth/signin';
import { services } from '@/lib/services';
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
    <div className="auth">
      <h1>Sign in to Monetize</h1>
      {one(params.created) === '1' && <p role="status">Your account is ready. Sign in with your password.</p>}
      {error && (
        <p role="alert" className="form-error">
          {error}
        </p>
      )}
      <form action={signIn} className="auth-form">
        <input type="hidden" name="callbackUrl" value={callbackUrl} />
        <label htmlFor="email">Email</label>
        <input id="email" name="email" type="email" autoComplete="email" required defaultValue={one(params.email) ?? ''} maxLength={254} />
        <label htmlFor="password">Password</label>
        <input id="password" name="password" type="password" autoComplete="current-password" required maxLength={200} />
        <button type="submit">Sign in</button>
      </form>
      <ProviderButtons callbackUrl={callbackUrl} providers={configuredProviders()} />
      <p>
        New publisher? <Link href={`/signup?${new URLSearchParams({ callbackUrl })}`}>Create an account</Link>
      </p>
    </div>
  );
}
