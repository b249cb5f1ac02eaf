import type { Metadata } from 'next';
import { formatMoment } from '@/lib/platform/kit/format';
import { listApprovals } from '@/lib/identity/oauth/approvals';
import { displayClientName, isolate } from '@/lib/identity/oauth/client-name';
import { services } from '@/lib/services';
import { withdrawApprovalAction } from '../actions';
import { ConfirmButton } from '../forms';
import { requirePublisher, rolesOfUser } from '../publisher';
import { RoleMissing } from '../role-missing';
import { ScrollTable } from '../tables';
import { ConsoleHeader, ConsoleNav } from '../nav';
import { EmptyState } from '../../_components/ui/empty-state';

export const metadata: Metadata = { title: 'Connected apps', robots: { index: false, follow: false } };
export const dynamic = 'force-dynamic';

export default async function ConnectedAppsPage() {
  const user = await requirePublisher('/dashboard/connected');
  if (!(await rolesOfUser(user.id)).publisher) return <RoleMissing role="publisher" title="Connected apps" current="/dashboard/connected" />;
  const approvals = await listApprovals(await services().database(), user.id);
  return (
    <div className="grid grid-cols-1 gap-4">
      <div>
        <ConsoleHeader title="Connected apps" />
        <ConsoleNav current="/dashboard/connected" />
      </div>
      <p className="max-w-3xl text-sm text-muted-foreground">
        The apps and agents you allowed to read your account, with what you allowed. Withdrawing an approval means the app must ask you again. An access token
        it already holds keeps working until it expires, at most one hour after it was issued.
      </p>
      {approvals.length === 0 ? (
        <EmptyState title="You have not approved any app.">
          When an app or an AI agent asks to read your account and you approve it, it is listed here, and you can withdraw it at any time.
        </EmptyState>
      ) : (
        <ScrollTable label="Connected apps" head={['App', 'Client id', 'Scopes', 'Approved', 'Withdraw']} stickyActions>
          {approvals.map((a) => (
            <tr key={a.client_id}>
              <th scope="row">
                <bdi>{displayClientName(a.client_name)}</bdi>
              </th>
              {/* Whole, as the id to look for elsewhere: wrapped where the row is narrow, never cut. */}
              <td className="min-w-48">
                <code className="break-all">{a.client_id}</code>
              </td>
              <td>{a.scopes.join(', ')}</td>
              <td>{formatMoment(a.approved_at.toISOString())}</td>
              <td>
                <ConfirmButton
                  action={withdrawApprovalAction}
                  fields={{ client_id: a.client_id }}
                  label={`Withdraw ${displayClientName(a.client_name)}`}
                  text="Withdraw"
                  question={`Withdraw your approval of ${isolate(displayClientName(a.client_name))}?`}
                  description="It must ask you again to read your account. An access token it holds keeps working until it expires, within the hour."
                  confirmLabel="Withdraw"
                />
              </td>
            </tr>
          ))}
        </ScrollTable>
      )}
    </div>
  );
}
