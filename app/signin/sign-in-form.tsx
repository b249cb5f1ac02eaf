'use client';

import { signIn } from 'next-auth/react';
import { useState, type FormEvent } from 'react';
import { signInErrorMessage } from '@/lib/auth/messages';

const PROVIDER_NAMES = { github: 'GitHub', google: 'Google' } as const;

export function SignInForm(props: { callbackUrl: string; email: string; error: string | null; providers: ('github' | 'google')[] }) {
  const [error, setError] = useState(props.error);
  const [busy, setBusy] = useState(false);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setBusy(true);
    setError(null);
    const result = await signIn('credentials', {
      email: String(form.get('email') ?? ''),
      password: String(form.get('password') ?? ''),
      redirect: false,
      callbackUrl: props.callbackUrl,
    });
    if (result?.ok && !result.error) {
      window.location.assign(props.callbackUrl);
      return;
    }
    setBusy(false);
    setError(signInErrorMessage(result?.error ?? 'unknown'));
  }

  return (
    <>
      {error && (
        <p role="alert" className="form-error">
          {error}
        </p>
      )}
      <form onSubmit={onSubmit} className="auth-form" method="post">
        <label htmlFor="email">Email</label>
        <input id="email" name="email" type="email" autoComplete="email" required defaultValue={props.email} maxLength={254} />
        <label htmlFor="password">Password</label>
        <input id="password" name="password" type="password" autoComplete="current-password" required maxLength={200} />
        <button type="submit" disabled={busy}>
          Sign in
        </button>
      </form>
      {props.providers.map((p) => (
        <p key={p}>
          <button type="button" onClick={() => signIn(p, { callbackUrl: props.callbackUrl })}>
            Sign in with {PROVIDER_NAMES[p]}
          </button>
        </p>
      ))}
    </>
  );
}
