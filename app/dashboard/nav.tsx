import Link from 'next/link';
import type { ReactNode } from 'react';

const PAGES = [
  { href: '/dashboard', label: 'Overview' },
  { href: '/dashboard/earnings', label: 'Earnings' },
  { href: '/dashboard/payouts', label: 'Payouts' },
  { href: '/dashboard/connected', label: 'Connected apps' },
  { href: '/dashboard/ads', label: 'Advertising' },
  { href: '/dashboard/data', label: 'Data' },
] as const;

/** The console's sections, the current one marked (on a narrow phone the tabs wrap onto a second line). */
export function ConsoleNav({ current }: { current: (typeof PAGES)[number]['href'] }) {
  return (
    <nav aria-label="Console" className="mb-8 border-b">
      <ul className="flex flex-wrap gap-x-1">
        {PAGES.map((p) => (
          <li key={p.href}>
            <Link
              href={p.href}
              aria-current={p.href === current ? 'page' : undefined}
              className="-mb-px inline-block border-b-2 border-transparent px-2.5 py-2.5 sm:px-3 text-sm font-medium text-muted-foreground no-underline hover:text-foreground aria-[current=page]:border-primary aria-[current=page]:text-foreground"
            >
              {p.label}
            </Link>
          </li>
        ))}
      </ul>
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
