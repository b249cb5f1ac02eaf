import { asUser, type Engine } from '../db/database';
import { approvalRow, type ApprovalRow } from '../schemas/console';

/**
 * The clients a publisher approved on the consent page (`oauth_consents`), written and read as
 * the publisher under row-level security. The consent page is shown on every authorization all
 * the same: a record is what the console lists and lets the publisher withdraw. Withdrawing
 * does not reach tokens already issued: they are verified by signature, not looked up, and
 * expire within the hour.
 */

const claims = (userId: string) => ({ sub: userId, client_id: 'console' });

/** Records (or renews) an approval: the client's name and the scopes as approved this time. */
export async function recordApproval(db: Engine, userId: string, client: { clientId: string; name: string }, scopes: readonly string[]): Promise<void> {
  await asUser(db, claims(userId), (q) =>
    q.query(
      `insert into public.oauth_consents (user_id, client_id, client_name, scopes) values ($1, $2, $3, $4)
       on conflict (user_id, client_id) do update set client_name = excluded.client_name, scopes = excluded.scopes, approved_at = now()`,
      [userId, client.clientId, client.name.slice(0, 200), [...scopes]],
    ),
  );
}

/** The publisher's approvals, the most recent first. */
export async function listApprovals(db: Engine, userId: string): Promise<ApprovalRow[]> {
  const rows = await asUser(db, claims(userId), (q) =>
    q.query('select client_id, client_name, scopes, approved_at from public.oauth_consents order by approved_at desc, client_id'),
  );
  return rows.map((r) => approvalRow.parse(r));
}

/** Withdraws an approval; false when there was none (never another publisher's: RLS hides those). */
export async function withdrawApproval(db: Engine, userId: string, clientId: string): Promise<boolean> {
  const rows = await asUser(db, claims(userId), (q) => q.query('delete from public.oauth_consents where client_id = $1 returning client_id', [clientId]));
  return rows.length === 1;
}
