import { headers } from 'next/headers';
import { redirect } from 'next/navigation';
import { signedInStaff } from '@/lib/identity/auth/staff';
import type { SignedInUser } from '@/lib/identity/auth/users';
import { services } from '@/lib/services';

/** Staff signed in with both factors, or a redirect to the operator sign-in. */
export async function requireStaff(): Promise<SignedInUser> {
  const staff = await signedInStaff(await headers(), services());
  if (!staff) redirect('/ops/signin');
  return staff;
}
