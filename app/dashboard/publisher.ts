import { headers } from 'next/headers';
import { redirect } from 'next/navigation';
import type { SignedInUser } from '@/lib/auth/users';
import { signedInPublisher } from '@/lib/console/session';
import { services } from '@/lib/services';

/** The signed-in publisher, or a redirect to sign-in that comes back to `path`. */
export async function requirePublisher(path: string): Promise<SignedInUser> {
  const user = await signedInPublisher(await headers(), services());
  if (!user) redirect(`/signin?${new URLSearchParams({ callbackUrl: path })}`);
  return user;
}
