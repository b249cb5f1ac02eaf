import type { Metadata } from 'next';
import { formatMoment } from '@/lib/console/format';
import { listApprovals } from '@/lib/oauth/approvals';
import { displayClientName, isolate } from '@/lib/oauth/client-name';
import { services } from '@/lib/services';
import { withdrawApprovalAction } from '../actions';
import { ConfirmButton } from '../forms';
import { requirePublisher } from '../publisher';
import { ScrollTable } from '../tables';
import { ConsoleNav } from '../nav';

export const metadata: Metadata = { title: 'Connected apps', robots: { index: false, follow: false } };
export const dynamic = 'force-dynamic';

export default async function ConnectedAppsPage() {
  const user = await requirePublisher('/dashboard/connected');
  const approvals = await listApprovals(await services().database(), user.id);
  return (
    <div className="console">
      <h1>Connected apps</h1>
      <ConsoleNav current="/dashboard/connected" />
      <p>
        The apps and agents you allowed to read your account, with what you allowed. Withdrawing an approval means the app must ask you again. An access token
        it already holds keeps working until it expires, at most one hour after it was issued.
      </p>
      {approvals.length === 0 ? (
        <p>You have not approved any app.</p>
      ) : (
        <ScrollTable label="Connected apps" head={['App', 'Client id', 'Scopes', 'Approved', 'Withdraw']}>
          {approvals.map((a) => (
            <tr key={a.client_id}>
              <th scope="row">
                <bdi>{displayClientName(a.client_name)}</bdi>
              </th>
              <td>
                <code>{a.client_id}</code>
              </td>
              <td>{a.scopes.join(', ')}</td>
              <td>{formatMoment(a.approved_at.toISOString())}</td>
              <td>
                <ConfirmButton
                  action={withdrawApprovalAction}
                  fields={{ client_id: a.client_id }}
                  label={`Withdraw ${displayClientName(a.client_name)}`}
                  question={`Withdraw your approval of ${isolate(displayClientName(a.client_name))}? It must ask you again to read your account.`}
                />
              </td>
            </tr>
          ))}
        </ScrollTable>
      )}
    </div>
  );
}
