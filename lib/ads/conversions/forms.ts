import { z } from 'zod';
import type { SignedInUser } from '../../identity/auth/users';
import type { Database } from '../../platform/db/roles';
import { fields, parse, type FormState } from '../../platform/kit/forms';
import { createConversionKey, revokeConversionKey } from './keys';

/**
 * The advertiser console's conversions forms (app/dashboard/ads/conversions): a conversions key
 * made (its secret shown once, in the state the form shows next) or revoked.
 */

type Services = { database(): Promise<Database> };

const keyName = z.object({
  name: z.string().trim().min(1, 'Name the key: where it is used, say "Checkout server".').max(100, 'A name of 100 characters at most.'),
});
const keyId = z.object({ id: z.string().uuid('Unknown key.') });

export async function createConversionKeyForm(form: FormData, user: SignedInUser, services: Services): Promise<FormState> {
  const input = parse(keyName, form);
  if (!input.ok) return input.state;
  const made = await createConversionKey(await services.database(), user.id, input.data.name);
  if (!made.ok) return { error: made.error, values: fields(form) };
  return { notice: `Conversions key ${made.value.name} made.`, createdKey: { name: made.value.name, key: made.value.key, masked_key: made.value.masked_key } };
}

export async function revokeConversionKeyForm(form: FormData, user: SignedInUser, services: Services): Promise<FormState> {
  const input = parse(keyId, form);
  if (!input.ok) return input.state;
  const revoked = await revokeConversionKey(await services.database(), user.id, input.data.id);
  return revoked.ok ? { notice: 'Key revoked: conversions sent with it are refused, and kept as invalid.' } : { error: revoked.error };
}
