import Link from 'next/link';

const PAGES = [
  { href: '/dashboard', label: 'Overview' },
  { href: '/dashboard/earnings', label: 'Earnings' },
  { href: '/dashboard/payouts', label: 'Payouts' },
  { href: '/dashboard/connected', label: 'Connected apps' },
] as const;

/** The console's sections, the current one marked. */
export function ConsoleNav({ current }: { current: (typeof PAGES)[number]['href'] }) {
  return (
    <nav aria-label="Console" className="console-nav">
      {PAGES.map((p) => (
        <Link key={p.href} href={p.href} aria-current={p.href === current ? 'page' : undefined}>
          {p.label}
        </Link>
      ))}
    </nav>
  );
}
