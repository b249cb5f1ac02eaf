import { clientIp } from '../../platform/http/client-ip';
import type { AuthServices as Services } from './services';
import { allowAttempt, settleSignIn } from './throttle';
import { checkPassword, createPublisher, signUpInput } from './users';
import { isSignUpErrorCode, safeCallbackUrl, textField, type SignUpErrorCode } from './messages';
import { sessionCookie, type SessionCookie } from './signin';

export type SignUpOutcome = { ok: true; cookies: SessionCookie[]; location: string } | { ok: false; location: string };

/** Where a new account lands when the form names nowhere else: the console's first-run checklist. */
export const AFTER_SIGN_UP = '/dashboard';

/** Why a person signs up: to earn from an app, to advertise, or to license data (one account may later do all three). */
export const SIGN_UP_SIDES = ['publisher', 'advertiser', 'buyer'] as const;
export type SignUpSide = (typeof SIGN_UP_SIDES)[number];
/** The side a form or link names; a publisher unless it names another. */
export const signUpSide = (value: string): SignUpSide => (SIGN_UP_SIDES.includes(value as SignUpSide) ? (value as SignUpSide) : 'publisher');
/** Where each side starts: the publisher's checklist, the advertiser's profile and campaigns, the data buyer's profile and catalog. */
const LANDING: Record<SignUpSide, string> = { publisher: AFTER_SIGN_UP, advertiser: '/dashboard/ads', buyer: '/dashboard/data' };

/**
 * The sign-up form's submission, as a server action (it works without JavaScript): a new
 * account, signed in at once, on to the console of the side it chose (a publisher's checklist,
 * an advertiser's profile, a data buyer's profile), or to where the form came from, such as an OAuth consent. A refused form goes back with an error code of SIGN_UP_ERRORS,
 * never text, and never the password.
 *
 * An email that has an account already is a sign-in: with that account's password, it signs
 * in (the person proved it is theirs); with another, the form says the address is taken.
 * That tells whoever types an address whether it has an account, as every sign-up that signs
 * in at once must; so the attempt with a password counts against the sign-in throttle of that
 * account and address, and sign-up is no faster a way to guess passwords than sign-in.
 */
export async function signUpFromForm(form: FormData, headers: Headers, services: Services): Promise<SignUpOutcome> {
  const field = (name: string) => textField(form, name);
  const callbackUrl = safeCallbackUrl(field('callbackUrl'));
  const side = signUpSide(field('as'));
  const back = (error: SignUpErrorCode | 'Unknown') => ({
    ok: false as const,
    location: `/signup?${new URLSearchParams({ error, email: field('email').slice(0, 254), name: field('name').slice(0, 100), company: field('company').slice(0, 100), as: side, callbackUrl })}`,
  });

  const parsed = signUpInput.safeParse({ email: field('email'), password: field('password'), name: field('name'), company: field('company') });
  if (!parsed.success) {
    // The schema's messages are the codes; a code it does not have would be a bug, shown as the generic message.
    const code = parsed.error.issues[0]?.message ?? '';
    return back(isSignUpErrorCode(code) ? code : 'Unknown');
  }
  const { email, password } = parsed.data;
  const ip = clientIp(headers);
  const landing = callbackUrl === '/' ? LANDING[side] : callbackUrl;
  const attempt = await allowAttempt(services.attempts, 'signup', email, ip, services.now());
  if (!attempt.allowed) return back('TooManyAttempts');

  const database = await services.database();
  const created = await createPublisher(parsed.data, database);
  if (created.ok) return { ok: true, cookies: [await sessionCookie(created.user, services)], location: landing };

  const signIn = await allowAttempt(services.attempts, 'signin', email, ip, services.now());
  if (!signIn.allowed) return back('TooManyAttempts');
  const holder = await checkPassword(email, password, database);
  // Staff have no publisher session (lib/identity/auth/staff.ts): their right password is answered as a wrong one.
  const user = holder && !holder.staff ? { id: holder.id, email: holder.email, name: holder.name } : null;
  await settleSignIn(services.attempts, email, ip, signIn, user !== null);
  if (!user) return back('EmailTaken');
  return { ok: true, cookies: [await sessionCookie(user, services)], location: landing };
}
