import { asConsoleUser } from '../console';
import type { Database } from '../../platform/db/roles';
import { sql } from '../../platform/db/sql';
import { approvalRow, type ApprovalRow } from '../../schemas/console';

/**
 * The clients a publisher approved on the consent page (`oauth_consents`), written and read as
 * the publisher under row-level security. The consent page is shown on every authorization all
 * the same: a record is what the console lists and lets the publisher withdraw. Withdrawing
 * does not reach tokens already issued: they are verified by signature, not looked up, and
 * expire within the hour.
 */

/** Records (or renews) an approval: the client's name and the scopes as approved this time. */
export async function recordApproval(db: Database, userId: string, client: { clientId: string; name: string }, scopes: readonly string[]): Promise<void> {
  await asConsoleUser(db, userId).query(
    sql`insert into public.oauth_consents (user_id, client_id, client_name, scopes) values (${userId}, ${client.clientId}, ${client.name.slice(0, 200)}, ${scopes}::text[])
        on conflict (user_id, client_id) do update set client_name = excluded.client_name, scopes = excluded.scopes, approved_at = now()`,
  );
}

/** The publisher's approvals, the most recent first. */
export async function listApprovals(db: Database, userId: string): Promise<ApprovalRow[]> {
  return asConsoleUser(db, userId).query(
    sql`select client_id, client_name, scopes, approved_at from public.oauth_consents order by approved_at desc, client_id`,
    approvalRow,
  );
}

/** Withdraws an approval; false when there was none (never another publisher's: RLS hides those). */
export async function withdrawApproval(db: Database, userId: string, clientId: string): Promise<boolean> {
  const rows = await asConsoleUser(db, userId).query(sql`delete from public.oauth_consents where client_id = ${clientId} returning client_id`);
  return rows.length === 1;
}
