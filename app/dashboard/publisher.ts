import { headers } from 'next/headers';
import { redirect } from 'next/navigation';
import { cache } from 'react';
import type { SignedInUser } from '@/lib/identity/auth/users';
import { signedInUser } from '@/lib/identity/auth/session';
import { accountRoles, type AccountRoles } from '@/lib/identity/roles';
import { services } from '@/lib/services';

/** The signed-in user of this request, or null: read once per request, whoever asks (a page, its nav). */
export const currentUser = cache(async (): Promise<SignedInUser | null> => signedInUser(await headers(), services()));

/** An account's roles (lib/identity/roles.ts), read once per request. */
export const rolesOfUser = cache(async (userId: string): Promise<AccountRoles> => accountRoles(await services().database(), userId));

/** The signed-in user, or a redirect to sign-in that comes back to `path`. */
export async function requirePublisher(path: string): Promise<SignedInUser> {
  const user = await currentUser();
  if (!user) redirect(`/signin?${new URLSearchParams({ callbackUrl: path })}`);
  return user;
}
