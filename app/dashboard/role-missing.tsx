import Link from 'next/link';
import { CONSOLES, type ConsoleRole } from '@/lib/identity/roles';
import { Button } from '../_components/ui/button';
import { ConsoleHeader, ConsoleNav } from './nav';

const WHAT: Record<ConsoleRole, string> = {
  publisher: 'Publishers earn from ads shown in their AI apps and from data their users consent to sell. Your account has no app yet.',
  advertiser: 'Advertisers fund a balance and run campaigns in AI apps. Your account has no advertiser profile yet.',
  buyer: 'Data buyers license consented datasets. Your account has no buyer profile yet.',
};

/**
 * A console page of a role the account does not hold: what the role is and how to take it up,
 * never another role's figures or checklist.
 */
export function RoleMissing({ role, title, current }: { role: ConsoleRole; title: string; current: Parameters<typeof ConsoleNav>[0]['current'] }) {
  return (
    <div>
      <ConsoleHeader title={title} />
      <ConsoleNav current={current} />
      <section aria-labelledby="take-up" className="grid max-w-2xl gap-4">
        <h2 id="take-up">This page is for {CONSOLES[role].name.toLowerCase()}s</h2>
        <p className="text-muted-foreground">{WHAT[role]}</p>
        <div>
          <Button asChild>
            <Link href={`${CONSOLES[role].home}${role === 'publisher' ? '#new-app' : ''}`}>{CONSOLES[role].takeUp}</Link>
          </Button>
        </div>
      </section>
    </div>
  );
}
