import Link from 'next/link';
import type { ReactNode } from 'react';
import type { SignedInUser } from '@/lib/identity/auth/users';
import { signOutAction } from './actions';
import { Button } from '../_components/ui/button';

/** The operator console's pages, each one kind of work. */
export const OPS_PAGES = [
  { href: '/ops', label: 'Overview' },
  { href: '/ops/top-ups', label: 'Top-ups' },
  { href: '/ops/reviews', label: 'Reviews' },
  { href: '/ops/traffic', label: 'Traffic quality' },
  { href: '/ops/payouts', label: 'Payouts' },
  { href: '/ops/months', label: 'Month close' },
  { href: '/ops/balances', label: 'Balances' },
  { href: '/ops/pricing', label: 'Pricing' },
  { href: '/ops/audit', label: 'Audit log' },
] as const;

export type OpsPage = (typeof OPS_PAGES)[number]['href'];

/**
 * One page of the operator console: who is signed in and the sign-out, the console's sections with
 * the current one marked (wrapping onto a second line on a phone), the page's title and what it is for.
 */
export function OpsFrame(props: { staff: SignedInUser; current: OpsPage; title: string; about?: ReactNode; children: ReactNode }) {
  const tab =
    '-mb-px inline-block border-b-2 border-transparent px-2.5 py-2.5 sm:px-3 text-sm font-medium text-muted-foreground no-underline hover:text-foreground aria-[current=page]:border-primary aria-[current=page]:text-foreground';
  return (
    <div className="grid grid-cols-1 gap-8">
      <div className="grid gap-4">
        <div className="flex flex-wrap items-center justify-between gap-3 text-sm text-muted-foreground">
          <p>Signed in as {props.staff.email}, with your second factor, for an hour.</p>
          <form action={signOutAction}>
            <Button type="submit" variant="outline" size="sm">
              Sign out of the operator console
            </Button>
          </form>
        </div>
        <nav aria-label="Operator console" className="border-b">
          <ul className="flex flex-wrap gap-x-1">
            {OPS_PAGES.map((p) => (
              <li key={p.href}>
                <Link href={p.href} aria-current={p.href === props.current ? 'page' : undefined} className={tab}>
                  {p.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <div>
          <h1 className="text-2xl sm:text-3xl">{props.title}</h1>
          {props.about && <p className="mt-1 max-w-3xl text-sm text-muted-foreground">{props.about}</p>}
        </div>
      </div>
      {props.children}
    </div>
  );
}
