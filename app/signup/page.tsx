import type { Metadata } from 'next';
import Link from 'next/link';
import { headers } from 'next/headers';
import { redirect } from 'next/navigation';
import { safeCallbackUrl, signUpErrorMessage } from '@/lib/auth/messages';
import { MIN_PASSWORD } from '@/lib/auth/users';
import { signUpFromForm } from '@/lib/auth/signup';
import { services } from '@/lib/services';

export const metadata: Metadata = { title: 'Create an account', robots: { index: false, follow: false } };
export const dynamic = 'force-dynamic';

type Search = Promise<Record<string, string | string[] | undefined>>;
const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v) ?? '';

async function signUp(form: FormData) {
  'use server';
  redirect(await signUpFromForm(form, await headers(), services()));
}

export default async function SignUpPage({ searchParams }: { searchParams: Search }) {
  const params = await searchParams;
  const callbackUrl = safeCallbackUrl(params.callbackUrl);
  const error = signUpErrorMessage(one(params.error));
  return (
    <div className="auth">
      <h1>Create a publisher account</h1>
      {error && (
        <p role="alert" className="form-error">
          {error}
        </p>
      )}
      <form action={signUp} className="auth-form">
        <input type="hidden" name="callbackUrl" value={callbackUrl} />
        <label htmlFor="email">Email</label>
        <input id="email" name="email" type="email" autoComplete="email" required maxLength={254} defaultValue={one(params.email)} />
        <label htmlFor="password">Password</label>
        <input
          id="password"
          name="password"
          type="password"
          autoComplete="new-password"
          required
          minLength={MIN_PASSWORD}
          maxLength={200}
          aria-describedby="password-hint"
        />
        <p id="password-hint" className="hint">
          At least {MIN_PASSWORD} characters.
        </p>
        <label htmlFor="name">Name</label>
        <input id="name" name="name" autoComplete="name" required maxLength={100} defaultValue={one(params.name)} />
        <label htmlFor="company">Company</label>
        <input id="company" name="company" autoComplete="organization" maxLength={100} defaultValue={one(params.company)} />
        <button type="submit">Create account</button>
      </form>
      <p>
        Already have an account? <Link href={`/signin?${new URLSearchParams({ callbackUrl })}`}>Sign in</Link>
      </p>
    </div>
  );
}
