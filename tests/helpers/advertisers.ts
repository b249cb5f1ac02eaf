import { expect } from 'vitest';
import { createCampaignForm, profileForm } from '@/lib/ads/advertisers/forms';
import type { SignedInUser } from '@/lib/identity/auth/users';
import type { Engine, Queryable } from '@/lib/platform/db/engine';
import type { PlacementFormat } from '@/lib/schemas/account';
import type { Services } from '@/lib/services';
import { rawAsService } from './roles';

let made = 0;

/**
 * A new advertiser as the console makes one: a user, a profile through the console's form, and
 * one draft campaign buying `formats`, named `<label> <unique>`, with a budget of 100 USD.
 */
export async function newDraftAdvertiser(
  db: Engine,
  services: Services,
  options: { label: string; formats: readonly PlacementFormat[] },
): Promise<{ user: SignedInUser; campaign: string }> {
  const unique = `${Date.now().toString(36)}-${process.pid}-${++made}`;
  const email = `${unique}@${options.label.toLowerCase()}.test`;
  const id = await rawAsService(db, async (q: Queryable) => {
    const [row] = await q.query<{ id: string }>('insert into public.users (email, name) values ($1, $2) returning id', [email, 'Ad Co']);
    return row!.id;
  });
  const user = { id, email, name: 'Ad Co' };
  const profile = new FormData();
  for (const [k, v] of Object.entries({
    company: 'Ad Co',
    billing_name: 'Ad Co Ltd',
    billing_email: `billing@${options.label.toLowerCase()}.test`,
    billing_address: '1 Test Street',
    country: 'GB',
    tax_id: '',
    time_zone: 'UTC',
  }))
    profile.set(k, v);
  expect(await profileForm(profile, user, services)).toMatchObject({ notice: expect.any(String) });
  const created = await createCampaignForm(campaignForm(`${options.label} ${unique}`, options.formats), user, services);
  expect(created.error).toBeUndefined();
  return { user, campaign: created.id! };
}

/** The campaign form as the console posts it: a budget of 100 USD from 2026-01-01, buying `formats`, with `extra` fields. */
export function campaignForm(name: string, formats: readonly PlacementFormat[], extra: Record<string, string> = {}): FormData {
  const form = new FormData();
  for (const [k, v] of Object.entries({
    name,
    starts_on: '2026-01-01',
    ends_on: '',
    lifetime_budget_usd: '100',
    daily_cap_usd: '',
    frequency_cap: '10',
    ...extra,
  }))
    form.set(k, v);
  for (const f of formats) form.append('formats', f);
  return form;
}
