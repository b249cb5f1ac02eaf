import type { Metadata } from 'next';
import { headers } from 'next/headers';
import { redirect } from 'next/navigation';
import { signedInStaff } from '@/lib/identity/auth/staff';
import { homeOf } from '@/lib/identity/roles';
import { services } from '@/lib/services';
import { currentUser, rolesOfUser } from '../dashboard/publisher';

export const metadata: Metadata = { title: 'Console', robots: { index: false, follow: false } };
export const dynamic = 'force-dynamic';

/**
 * /console: the header's "Console" and a sign-in without a destination come here, and go on to the
 * console of the account's role (lib/identity/roles.ts, homeOf); staff signed in to /ops only, to
 * the operator console; anyone else, to sign-in and back.
 */
export default async function ConsoleHome(): Promise<never> {
  const user = await currentUser();
  if (user) redirect(homeOf(await rolesOfUser(user.id)));
  if (await signedInStaff(await headers(), services())) redirect('/ops');
  redirect(`/signin?${new URLSearchParams({ callbackUrl: '/console' })}`);
}
