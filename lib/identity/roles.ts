import { z } from 'zod';
import { asService, type Database } from '../platform/db/roles';
import { sql } from '../platform/db/sql';

/**
 * What an account is, for the consoles: one account may hold several roles. A publisher has
 * apps; an advertiser has an advertiser profile (/dashboard/ads makes it); a data buyer has a
 * buyer profile (/dashboard/data); an operator is a staff member (/ops, with a second factor).
 * An account with none of them is a publisher who has not added an app yet: sign-up's default.
 */
export interface AccountRoles {
  publisher: boolean;
  advertiser: boolean;
  buyer: boolean;
  operator: boolean;
}

export type ConsoleRole = Exclude<keyof AccountRoles, 'operator'>;

/** Each role's console: its home, its name, and how an account takes it up. */
export const CONSOLES: Record<ConsoleRole, { home: string; name: string; takeUp: string }> = {
  publisher: { home: '/dashboard', name: 'Publisher', takeUp: 'Add an app to earn from ads in it' },
  advertiser: { home: '/dashboard/ads', name: 'Advertiser', takeUp: 'Start advertising' },
  buyer: { home: '/dashboard/data', name: 'Data buyer', takeUp: 'Buy consented data' },
};

const facts = z.object({ apps: z.boolean(), advertiser: z.boolean(), buyer: z.boolean(), staff: z.boolean() });

/** From what the account holds (pure). */
export function rolesOf(held: z.infer<typeof facts>): AccountRoles {
  return {
    publisher: held.apps || (!held.advertiser && !held.buyer && !held.staff),
    advertiser: held.advertiser,
    buyer: held.buyer,
    operator: held.staff,
  };
}

/** The account's roles, read as the service: the user's own rows, one statement. */
export async function accountRoles(db: Database, userId: string): Promise<AccountRoles> {
  const [row] = await asService(db).query(
    sql`select exists (select 1 from public.apps where user_id = ${userId}::uuid) as apps,
               exists (select 1 from public.advertiser_profiles where user_id = ${userId}::uuid) as advertiser,
               exists (select 1 from public.buyer_profiles where user_id = ${userId}::uuid) as buyer,
               exists (select 1 from public.staff_members where user_id = ${userId}::uuid) as staff`,
    facts,
  );
  return rolesOf(row!);
}

/**
 * Where "Console" and a sign-in without a destination go: the publisher's overview for a
 * publisher, else the advertiser's, else the buyer's console; the operator console for staff
 * who hold no other role.
 */
export function homeOf(roles: AccountRoles): string {
  if (roles.publisher) return CONSOLES.publisher.home;
  if (roles.advertiser) return CONSOLES.advertiser.home;
  if (roles.buyer) return CONSOLES.buyer.home;
  return roles.operator ? '/ops' : CONSOLES.publisher.home;
}
