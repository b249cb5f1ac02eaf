'use client';

import Link from 'next/link';
import { usePathname } from 'next/navigation';
import { useEffect, useState } from 'react';
import { Button } from './ui/button';

interface SessionUser {
  name?: string | null;
  email?: string | null;
}

/**
 * The header's account links: "Sign in" and "Sign up", or the console and sign-out for the user
 * the page was served to (the layout reads the session cookie, so a signed-in page never flashes
 * "Sign in"); staff signed in to /ops are offered the operator console instead. Signing in ends with a navigation inside the app rather than a page load, so while
 * signed out the menu asks next-auth's session endpoint again after each navigation.
 */
/**
 * Signs out as next-auth's own client does (its `signOut`, which is not imported here: every page
 * has this menu, and it would bring next-auth's client and its Babel helpers into each one, which
 * `npm run dev` compiles at every start): the CSRF token from /api/auth/csrf, posted to
 * /api/auth/signout, then on to the address next-auth answers. Should either call fail, next-auth's
 * own sign-out page asks instead.
 */
async function signOut(): Promise<void> {
  try {
    const { csrfToken } = (await (await fetch('/api/auth/csrf', { cache: 'no-store' })).json()) as { csrfToken: string };
    const res = await fetch('/api/auth/signout', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrfToken, callbackUrl: '/', json: 'true' }),
    });
    if (!res.ok) throw new Error(`sign-out answered ${res.status}`);
    const { url } = (await res.json()) as { url?: string };
    window.location.href = url ?? '/';
  } catch {
    // A page load, not a client navigation: the sign-out page is next-auth's route, not a page of the app.
    // eslint-disable-next-line @next/next/no-location-assign-relative-destination
    window.location.href = '/api/auth/signout';
  }
}

export function AccountMenu({ initialUser = null, operator = null }: { initialUser?: SessionUser | null; operator?: { email: string } | null }) {
  const pathname = usePathname();
  const [user, setUser] = useState<SessionUser | null>(initialUser);

  useEffect(() => {
    if (user) return;
    let current = true;
    fetch('/api/auth/session', { cache: 'no-store' })
      .then((res) => (res.ok ? (res.json() as Promise<{ user?: SessionUser }>) : null))
      .then((session) => {
        if (current && session?.user) setUser(session.user);
      })
      .catch(() => {});
    return () => {
      current = false;
    };
  }, [pathname, user]);

  // Staff signed in to the operator console: offered it, and not asked to sign up.
  const ops = operator && (
    <Button asChild size="sm" variant={user ? 'outline' : 'default'}>
      <Link href="/ops" aria-label={`Operator console (${operator.email})`}>
        {/* Beside the account's own console on a phone, in a word. */}
        <span className={user ? 'sm:hidden' : 'hidden'}>Ops</span>
        <span className={user ? 'max-sm:hidden' : ''}>Operator console</span>
      </Link>
    </Button>
  );
  if (!user && operator) {
    return (
      <nav aria-label="Account" className="flex min-w-0 items-center gap-1 sm:gap-2">
        <span className="hidden max-w-40 truncate text-sm text-muted-foreground md:inline">{operator.email}</span>
        {ops}
      </nav>
    );
  }
  if (!user) {
    return (
      <div className="flex items-center gap-1 sm:gap-2">
        <Link href="/signin" className="account-link rounded-md px-2 py-1.5 text-sm font-medium whitespace-nowrap text-foreground no-underline hover:bg-accent">
          Sign in
        </Link>
        <Button asChild size="sm">
          <Link href="/signup">Sign up</Link>
        </Button>
      </div>
    );
  }
  return (
    <nav aria-label="Account" className="flex min-w-0 items-center gap-1 sm:gap-2">
      <span className="hidden max-w-40 truncate text-sm text-muted-foreground md:inline">{user.name || user.email || 'Your account'}</span>
      {ops}
      <Button asChild size="sm">
        {/* The console of the account's role (app/console/page.tsx). */}
        <Link href="/console">Console</Link>
      </Button>
      <Button variant="ghost" size="sm" onClick={() => void signOut()}>
        Sign out
      </Button>
    </nav>
  );
}
