import { as, type Database, type Session } from '../platform/db/roles';

/**
 * The publisher at work in their own console: the role `authenticated` with the publisher as the
 * user and `console` as the client, so row-level security shows and lets them change their own
 * rows only (lib/console/writes.ts, lib/oauth/approvals.ts).
 */
export function asPublisher(db: Database, userId: string): Session {
  return as(db, 'authenticated', { sub: userId, client_id: 'console' });
}
