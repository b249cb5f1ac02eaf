import type { Database } from '../../platform/db/roles';
import type { OAuthSecrets } from '../secrets';
import type { AttemptLimiters } from './throttle';

/** What sign-in and sign-up need of the service: the database, the session secret, the attempt budgets and the clock. */
export interface AuthServices {
  database(): Promise<Database>;
  oauthSecrets(): Promise<OAuthSecrets | null>;
  readonly attempts: AttemptLimiters;
  now(): number;
}
