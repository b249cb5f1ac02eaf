import { as, type Database, type Session } from '../platform/db/roles';

/**
 * Someone at work in their own console, whichever side they are on (a publisher, an advertiser,
 * a buyer): the role `authenticated` with them as the user and `console` as the client, so
 * row-level security shows and lets them change their own rows only. Another account's app,
 * campaign or license is simply not there ("not found"), whatever id a form sends.
 */
export function asConsoleUser(db: Database, userId: string): Session {
  return as(db, 'authenticated', { sub: userId, client_id: 'console' });
}
