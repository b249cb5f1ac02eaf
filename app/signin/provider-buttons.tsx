'use client';

import { signIn } from 'next-auth/react';
import { Button } from '../_components/ui/button';

const PROVIDER_NAMES = { github: 'GitHub', google: 'Google' } as const;

/** Sign-in with GitHub or Google (when configured): next-auth's OAuth flow, which needs the page's script. */
export function ProviderButtons(props: { callbackUrl: string; providers: ('github' | 'google')[] }) {
  if (props.providers.length === 0) return null;
  return (
    <div className="grid gap-2 border-t pt-4">
      {props.providers.map((p) => (
        <Button key={p} variant="outline" className="w-full" onClick={() => signIn(p, { callbackUrl: props.callbackUrl })}>
          Sign in with {PROVIDER_NAMES[p]}
        </Button>
      ))}
    </div>
  );
}
