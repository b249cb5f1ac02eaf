import { randomUUID } from 'node:crypto';
import type { Metadata } from 'next';
import { formatMoment } from '@/lib/platform/kit/format';
import { advertisingQueue } from '@/lib/ops/advertising';
import { reversalsQueue, type ReversalsQueue } from '@/lib/ops/reversals';
import { staffOverview } from '@/lib/money/payouts/staff';
import { LEDGER_ACCOUNT_NAMES, ledgerAccountName } from '@/lib/schemas/ledger';
import { services } from '@/lib/services';
import { adjustmentAction, releaseAction } from '../../actions';
import { AdjustmentForm, ReleaseForm } from '../../forms';
import { OpsFrame } from '../../frame';
import { usd } from '../../money';
import { requireStaff } from '../../staff';
import { ScrollTable } from '../../../dashboard/tables';
import { EmptyState } from '../../../_components/ui/empty-state';

export const metadata: Metadata = { title: 'Balances · Operator console', robots: { index: false, follow: false } };
export const dynamic = 'force-dynamic';

/** The ledger's balances by account, each side's balances, the accounts on hold, and adjustments of a publisher's earnings. */
export default async function OpsBalancesPage() {
  const staff = await requireStaff();
  const db = await services().database();
  const [o, ads, reversals] = await Promise.all([staffOverview(db, staff), advertisingQueue(db, staff), reversalsQueue(db, staff)]);
  return (
    <OpsFrame staff={staff} current="/ops/balances" title="Balances" about="What the ledger holds, account by account. Every figure is the sum of its entries.">
      <section aria-labelledby="balances" className="grid grid-cols-1 gap-4">
        <h2 id="balances">The platform’s accounts</h2>
        <ScrollTable label="Platform accounts" head={['Account', 'What it holds', 'Balance']}>
          {o.platform.map((a) => (
            <tr key={a.kind}>
              <th scope="row">{ledgerAccountName(a.kind)}</th>
              <td>{(LEDGER_ACCOUNT_NAMES as Record<string, { about: string } | undefined>)[a.kind]?.about ?? ''}</td>
              <td className="num">{usd(a.balance_micro)}</td>
            </tr>
          ))}
        </ScrollTable>
      </section>

      <section aria-labelledby="publishers" className="grid grid-cols-1 gap-4">
        <h2 id="publishers">Publishers</h2>
        <ScrollTable label="Publishers" head={['Publisher', 'Not final yet', 'Available', 'Pays to']}>
          {o.publishers.map((p) => (
            <tr key={p.user_id}>
              <th scope="row">{p.email}</th>
              <td className="num">{usd(p.pending_micro)}</td>
              <td className="num">{usd(p.available_micro)}</td>
              <td>{p.destination ? `${p.destination}${p.method_ready ? '' : ' (not ready)'}` : '—'}</td>
            </tr>
          ))}
        </ScrollTable>
      </section>

      <section aria-labelledby="advertisers" className="grid grid-cols-1 gap-4">
        <h2 id="advertisers">Advertisers</h2>
        <ScrollTable label="Advertisers" head={['Advertiser', 'Email', 'Balance', 'Active campaigns']}>
          {ads.advertisers.map((a) => (
            <tr key={a.user_id}>
              <th scope="row">{a.company}</th>
              <td>{a.email}</td>
              <td className="num">{usd(a.balance_micro)}</td>
              <td className="num">{a.active_campaigns}</td>
            </tr>
          ))}
        </ScrollTable>
      </section>

      <Holds reversals={reversals} />

      <section aria-labelledby="adjust" className="grid grid-cols-1 gap-4">
        <h2 id="adjust">Adjust a publisher’s earnings</h2>
        <p className="text-sm text-muted-foreground">
          For invalid traffic found after a day was posted, or a correction in the publisher’s favour: a new ledger entry with its reason, never an edit.
        </p>
        <AdjustmentForm action={adjustmentAction} publishers={o.publishers.map((p) => ({ id: p.user_id, email: p.email }))} reference={randomUUID()} />
      </section>
    </OpsFrame>
  );
}

const CAUSES = { refund: 'refunded', dispute: 'disputed', payment_failed: 'payment failed' } as const;
const BALANCES: Record<string, string> = { advertiser: 'advertising', buyer: 'data' };

/** Accounts on hold because card money of theirs was taken back, and reversals that moved no money. */
function Holds({ reversals }: { reversals: ReversalsQueue }) {
  return (
    <section aria-labelledby="holds" className="grid grid-cols-1 gap-4">
      <h2 id="holds">Accounts on hold</h2>
      <p className="text-sm text-muted-foreground">
        A card payment of theirs was refunded, disputed or failed: what it brought in was taken back from their balance, their campaigns are paused, and they
        buy and download nothing. Release one once it is settled (its balances not below zero), with what settled it.
      </p>
      {reversals.holds.length === 0 ? (
        <EmptyState title="No account is on hold." />
      ) : (
        reversals.holds.map((h) => {
          const who = h.company ?? h.email;
          return (
            <article key={h.user_id} className="grid gap-3 rounded-xl border bg-card p-4 sm:p-6" aria-label={`Hold on ${who}`} data-testid="account-hold">
              <h3 className="text-base break-words">
                {who} · {h.email} · {CAUSES[h.cause]}
              </h3>
              <p className="text-sm text-muted-foreground">
                On hold since {formatMoment(h.opened_at.toISOString())}. Advertising balance {usd(h.advertiser_balance_micro)}, data balance{' '}
                {usd(h.buyer_balance_micro)}; {h.paused_campaigns} campaign{h.paused_campaigns === 1 ? '' : 's'} paused.
              </p>
              <ul className="text-sm">
                {h.reversals.map((r, i) => (
                  <li key={i}>
                    {formatMoment(r.created_at.toISOString())}: {CAUSES[r.cause]}, {usd(r.reversed_micro)} taken back from the{' '}
                    {BALANCES[r.account_kind ?? ''] ?? ''} balance ({r.payment_reference ?? 'no payment named'})
                  </li>
                ))}
              </ul>
              <ReleaseForm action={releaseAction} userId={h.user_id} label={who} />
            </article>
          );
        })
      )}
      {reversals.unmoved.length > 0 && (
        <ScrollTable label="Reversals that moved no money (30 days)" head={['When', 'What', 'Amount', 'Payment', 'Account']}>
          {reversals.unmoved.map((r) => (
            <tr key={r.id}>
              <td>{formatMoment(r.created_at.toISOString())}</td>
              <td>{CAUSES[r.cause]}</td>
              <td className="num">{usd(r.amount_micro)}</td>
              <td>{r.payment_reference ?? r.session_id ?? ''}</td>
              <td>{r.email ?? 'no top-up of ours'}</td>
            </tr>
          ))}
        </ScrollTable>
      )}
    </section>
  );
}
