'use client';

import { signOut } from 'next-auth/react';
import Link from 'next/link';
import { usePathname } from 'next/navigation';
import { useEffect, useState } from 'react';

interface SessionUser {
  name?: string | null;
  email?: string | null;
}

/**
 * The header's account links: "Sign in" as the page is served (the same for every visitor, and the
 * link works before any script), then, once next-auth's session endpoint names the user, the
 * console and sign-out. Signing in ends with a navigation inside the app rather than a page
 * load, so while signed out the menu asks again after each navigation.
 */
export function AccountMenu() {
  const pathname = usePathname();
  const [user, setUser] = useState<SessionUser | null>(null);

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

  if (!user) {
    return (
      <Link href="/signin" className="account-link">
        Sign in
      </Link>
    );
  }
  return (
    <nav aria-label="Account" className="account-menu">
      <span className="account-name">{user.name || user.email || 'Your account'}</span>
      <Link href="/dashboard">Console</Link>
      <button type="button" className="link-button" onClick={() => signOut({ callbackUrl: '/' })}>
        Sign out
      </button>
    </nav>
  );
}
