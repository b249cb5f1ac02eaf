'use client';

import { signIn } from 'next-auth/react';

const PROVIDER_NAMES = { github: 'GitHub', google: 'Google' } as const;

/** Sign-in with GitHub or Google (when configured): next-auth's OAuth flow, which needs the page's script. */
export function ProviderButtons(props: { callbackUrl: string; providers: ('github' | 'google')[] }) {
  return props.providers.map((p) => (
    <p key={p}>
      <button type="button" onClick={() => signIn(p, { callbackUrl: props.callbackUrl })}>
        Sign in with {PROVIDER_NAMES[p]}
      </button>
    </p>
  ));
}
