import type { Metadata } from 'next';
import Link from 'next/link';
import { cookies, headers } from 'next/headers';
import { redirect } from 'next/navigation';
import { safeCallbackUrl, signUpErrorMessage } from '@/lib/identity/auth/messages';
import { MIN_PASSWORD } from '@/lib/identity/auth/users';
import { SIGN_UP_SIDES, signUpFromForm, signUpSide, type SignUpSide } from '@/lib/identity/auth/signup';
import { services } from '@/lib/services';
import { AuthCard } from '../_components/auth/auth-card';
import { Alert } from '../_components/ui/alert';
import { Button } from '../_components/ui/button';
import { Field, Input } from '../_components/ui/input';
import { RadioGroup, RadioItem } from '../_components/ui/radio-group';

export const metadata: Metadata = { title: 'Create an account', robots: { index: false, follow: false } };
export const dynamic = 'force-dynamic';

type Search = Promise<Record<string, string | string[] | undefined>>;
const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v) ?? '';

async function signUp(form: FormData) {
  'use server';
  const outcome = await signUpFromForm(form, await headers(), services());
  if (outcome.ok) for (const cookie of outcome.cookies) (await cookies()).set(cookie.name, cookie.value, cookie.options);
  redirect(outcome.location);
}

const INTRO: Record<SignUpSide, string> = {
  publisher: 'Free to start: add an app, a placement and a key, paste one snippet, and your first impression shows in the console.',
  advertiser: 'Add your billing details, fund a prepaid balance, and create a campaign: the operator reviews it before it serves.',
  buyer: 'Accept the data license terms, fund a prepaid balance, look at a free sample of each listing, and license the consented records you need.',
};

const TITLE: Record<SignUpSide, string> = {
  publisher: 'Create a publisher account',
  advertiser: 'Create an advertiser account',
  buyer: 'Create a data buyer account',
};

const CHOICE: Record<SignUpSide, string> = {
  publisher: 'Earn from my app (publisher)',
  advertiser: 'Advertise in AI apps (advertiser)',
  buyer: 'License consented data (data buyer)',
};

export default async function SignUpPage({ searchParams }: { searchParams: Search }) {
  const params = await searchParams;
  const callbackUrl = safeCallbackUrl(params.callbackUrl);
  const error = signUpErrorMessage(one(params.error));
  const side = signUpSide(one(params.as));
  return (
    <AuthCard
      title={TITLE[side]}
      intro={INTRO[side]}
      footer={
        <>
          Already have an account? <Link href={`/signin?${new URLSearchParams({ callbackUrl })}`}>Sign in</Link>
        </>
      }
    >
      {error && <Alert tone="error">{error}</Alert>}
      <form action={signUp} className="grid gap-4">
        <input type="hidden" name="callbackUrl" value={callbackUrl} />
        <fieldset className="grid gap-2">
          <legend className="mb-1 text-sm font-medium">You are here to</legend>
          <RadioGroup name="as" defaultValue={side} aria-label="You are here to">
            {SIGN_UP_SIDES.map((s) => (
              <label key={s} className="flex items-center gap-2 text-sm">
                <RadioItem value={s} />
                {CHOICE[s]}
              </label>
            ))}
          </RadioGroup>
          <p className="text-sm text-muted-foreground">One account can do all three: you can start another side from the console later.</p>
        </fieldset>
        <Field label="Email" htmlFor="email">
          <Input id="email" name="email" type="email" autoComplete="email" required maxLength={254} defaultValue={one(params.email)} />
        </Field>
        <Field label="Password" htmlFor="password" hint={`At least ${MIN_PASSWORD} characters.`} hintId="password-hint">
          <Input
            id="password"
            name="password"
            type="password"
            autoComplete="new-password"
            required
            minLength={MIN_PASSWORD}
            maxLength={200}
            aria-describedby="password-hint"
          />
        </Field>
        <Field label="Name" htmlFor="name">
          <Input id="name" name="name" autoComplete="name" required maxLength={100} defaultValue={one(params.name)} />
        </Field>
        <Field label="Company (optional)" htmlFor="company">
          <Input id="company" name="company" autoComplete="organization" maxLength={100} defaultValue={one(params.company)} />
        </Field>
        <Button type="submit" className="w-full">
          Create account
        </Button>
      </form>
    </AuthCard>
  );
}
