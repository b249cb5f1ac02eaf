import { clientIp } from '../platform/http/client-ip';
import type { AuthServices as Services } from './services';
import { allowAttempt } from './throttle';
import { createPublisher, signUpInput } from './users';
import { isSignUpErrorCode, safeCallbackUrl, textField, type SignUpErrorCode } from './messages';

/**
 * The sign-up form's submission: a new publisher account, then on to sign-in. Answers with the
 * page to go to (the form works without JavaScript: a server action that redirects). A refused
 * form goes back with an error code of SIGN_UP_ERRORS, never text.
 *
 * Sign-up does not tell whether an email address has an account: for one that has, nothing is
 * created or changed, and the answer is the very one a new address gets (the same page, after
 * the same scrypt hash), "your account is ready, sign in". Its owner signs in with the password
 * they had.
 */
export async function signUpFromForm(form: FormData, headers: Headers, services: Services): Promise<string> {
  const field = (name: string) => textField(form, name);
  const callbackUrl = safeCallbackUrl(field('callbackUrl'));
  const back = (error: SignUpErrorCode | 'Unknown') =>
    `/signup?${new URLSearchParams({ error, email: field('email').slice(0, 254), name: field('name').slice(0, 100), company: field('company').slice(0, 100), callbackUrl })}`;

  const parsed = signUpInput.safeParse({ email: field('email'), password: field('password'), name: field('name'), company: field('company') });
  if (!parsed.success) {
    // The schema's messages are the codes; a code it does not have would be a bug, shown as the generic message.
    const code = parsed.error.issues[0]?.message ?? '';
    return back(isSignUpErrorCode(code) ? code : 'Unknown');
  }
  const attempt = await allowAttempt(services.attempts, 'signup', parsed.data.email, clientIp(headers), services.now());
  if (!attempt.allowed) return back('TooManyAttempts');
  // Created, or the email has an account already: the same answer either way.
  await createPublisher(parsed.data, await services.database());
  return `/signin?${new URLSearchParams({ created: '1', email: parsed.data.email, callbackUrl })}`;
}
