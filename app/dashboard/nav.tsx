import Link from 'next/link';
import type { ReactNode } from 'react';
import { CONSOLES, type ConsoleRole } from '@/lib/identity/roles';
import { currentUser, rolesOfUser } from './publisher';

/** The console's sections, each of the role whose console it is. */
const PAGES = [
  { href: '/dashboard', label: 'Overview', role: 'publisher' },
  { href: '/dashboard/earnings', label: 'Earnings', role: 'publisher' },
  { href: '/dashboard/payouts', label: 'Payouts', role: 'publisher' },
  { href: '/dashboard/connected', label: 'Connected apps', role: 'publisher' },
  { href: '/dashboard/ads', label: 'Advertising', role: 'advertiser' },
  { href: '/dashboard/data', label: 'Data', role: 'buyer' },
] as const satisfies readonly { href: string; label: string; role: ConsoleRole }[];

/** What an account that lacks a role is offered, at the end of the tabs, to take it up. */
const TAKE_UP: Record<ConsoleRole, string> = { publisher: 'Publish an app', advertiser: 'Advertise', buyer: 'Buy data' };

/**
 * The console's sections of the roles the account holds, the current one marked (on a narrow phone
 * the tabs wrap onto a second line): a publisher's four, an advertiser's, a data buyer's, as many
 * as it has; then, for each role it lacks, a link to that role's console, which says how to take
 * it up. An account holding several switches between them here.
 */
export async function ConsoleNav({ current }: { current: (typeof PAGES)[number]['href'] }) {
  const user = await currentUser();
  const roles = user ? await rolesOfUser(user.id) : { publisher: true, advertiser: false, buyer: false, operator: false };
  const held = PAGES.filter((p) => roles[p.role] || p.href === current);
  const missing = (Object.keys(CONSOLES) as ConsoleRole[]).filter((r) => !roles[r] && !held.some((p) => p.role === r));
  const tab =
    '-mb-px inline-block border-b-2 border-transparent px-2.5 py-2.5 sm:px-3 text-sm font-medium no-underline hover:text-foreground aria-[current=page]:border-primary aria-[current=page]:text-foreground';
  return (
    <nav aria-label="Console" className="mb-8 flex flex-wrap items-end justify-between gap-x-4 border-b">
      <ul className="flex flex-wrap gap-x-1">
        {held.map((p) => (
          <li key={p.href}>
            <Link href={p.href} aria-current={p.href === current ? 'page' : undefined} className={`${tab} text-muted-foreground`}>
              {p.label}
            </Link>
          </li>
        ))}
      </ul>
      {missing.length > 0 && (
        <ul aria-label="Take up another role" className="flex flex-wrap gap-x-1">
          {missing.map((role) => (
            <li key={role}>
              <Link href={CONSOLES[role].home} className={`${tab} text-primary`}>
                + {TAKE_UP[role]}
              </Link>
            </li>
          ))}
        </ul>
      )}
    </nav>
  );
}

/** The top of a console page: its title, a line under it, and actions on the right. */
export function ConsoleHeader({ title, subtitle, actions }: { title: string; subtitle?: ReactNode; actions?: ReactNode }) {
  return (
    <div className="mb-4 flex flex-wrap items-end justify-between gap-3">
      <div className="min-w-0">
        <h1 className="text-2xl sm:text-3xl">{title}</h1>
        {subtitle && <p className="mt-1 text-sm text-muted-foreground">{subtitle}</p>}
      </div>
      {actions}
    </div>
  );
}
