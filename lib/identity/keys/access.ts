import { as, type Database, type Session } from '../../platform/db/roles';

/**
 * How the SDK surface reaches the database: as the role `sdk`, with the app of the request in
 * `request.jwt.claims` (migration 20261125000000). Its row-level security policies let it read
 * and write its own app's placements, decisions, events, consents and data, and nothing of any
 * other app, whatever a statement asks for. Never as the service.
 *
 * A request's statements go with the claims as one message (`Session.query`, `Session.script`):
 * one round trip and no begin or commit, which is most of what an ad request costs.
 */

/** The app an SDK request acts for, and its owner (whose rows its writes are). */
export interface AppClaims {
  appId: string;
  userId: string;
}

/** Statements run as the app's SDK role. */
export function asApp(db: Database, app: AppClaims | { appId: string }): Session {
  return as(db, 'sdk', { app_id: app.appId, ...('userId' in app ? { user_id: app.userId } : {}) });
}
