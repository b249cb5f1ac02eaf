import { clientIp } from '../http/client-ip';
import type { Services } from '../services';
import { allowAttempt } from './throttle';
import { createPublisher, signUpInput } from './users';
import { safeCallbackUrl, textField } from './messages';

/**
 * The sign-up form's submission: a new publisher account, then on to sign-in. Answers with the
 * page to go to (the form works without JavaScript: a server action that redirects).
 */
export async function signUpFromForm(form: FormData, headers: Headers, services: Services): Promise<string> {
  const field = (name: string) => textField(form, name);
  const callbackUrl = safeCallbackUrl(field('callbackUrl'));
  const back = (error: string) =>
    `/signup?${new URLSearchParams({ error, email: field('email').slice(0, 254), name: field('name').slice(0, 100), company: field('company').slice(0, 100), callbackUrl })}`;

  const parsed = signUpInput.safeParse({ email: field('email'), password: field('password'), name: field('name'), company: field('company') });
  if (!parsed.success) return back(parsed.error.issues[0]!.message);
  const attempt = await allowAttempt(services.attempts, 'signup', parsed.data.email, clientIp(headers), services.now());
  if (!attempt.allowed) return back('Too many attempts from here. Wait 15 minutes, then try again.');
  const result = await createPublisher(parsed.data, await services.database());
  if (!result.ok) return back(result.error);
  return `/signin?${new URLSearchParams({ created: '1', email: parsed.data.email, callbackUrl })}`;
}
