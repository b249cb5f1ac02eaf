import { headers } from 'next/headers';
import { redirect } from 'next/navigation';
import type { SignedInUser } from '@/lib/identity/auth/users';
import { signedInUser } from '@/lib/identity/auth/session';
import { services } from '@/lib/services';

/** The signed-in publisher, or a redirect to sign-in that comes back to `path`. */
export async function requirePublisher(path: string): Promise<SignedInUser> {
  const user = await signedInUser(await headers(), services());
  if (!user) redirect(`/signin?${new URLSearchParams({ callbackUrl: path })}`);
  return user;
}
