import type { Metadata } from 'next';
import Link from 'next/link';
import { configuredProviders } from '@/lib/auth/options';
import { safeCallbackUrl, signInErrorMessage } from '@/lib/auth/messages';
import { SignInForm } from './sign-in-form';

export const metadata: Metadata = { title: 'Sign in', robots: { index: false, follow: false } };
export const dynamic = 'force-dynamic';

type Search = Promise<Record<string, string | string[] | undefined>>;
const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

export default async function SignInPage({ searchParams }: { searchParams: Search }) {
  const params = await searchParams;
  const callbackUrl = safeCallbackUrl(params.callbackUrl);
  return (
    <div className="auth">
      <h1>Sign in to Monetize</h1>
      {one(params.created) === '1' && <p role="status">Your account is ready. Sign in with your new password.</p>}
      <SignInForm
        callbackUrl={callbackUrl}
        email={one(params.email) ?? ''}
        error={signInErrorMessage(one(params.error))}
        providers={configuredProviders()}
      />
      <p>
        New publisher? <Link href={`/signup?${new URLSearchParams({ callbackUrl })}`}>Create an account</Link>
      </p>
    </div>
  );
}
