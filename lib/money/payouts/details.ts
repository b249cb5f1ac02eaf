import { z } from 'zod';
import { seal } from '../../platform/crypto';

/**
 * The manual rail's payout details (content/docs/payouts.md, Payout methods): who the bank
 * account belongs to and the account itself (an IBAN, or a local account number with its routing
 * or sort code). Kept encrypted (`payout_methods.details_ciphertext`, sealed for
 * PAYOUT_DETAILS_PURPOSE) and shown masked everywhere: the operator reads the whole details only
 * when sending the money.
 */
export const manualDetails = z.object({
  account_holder: z.string().trim().min(2, 'Give the account holder’s name.').max(100, 'At most 100 characters.'),
  account: z
    .string()
    .transform((v) => v.replace(/[\s-]/g, '').toUpperCase())
    .pipe(z.string().regex(/^[A-Z0-9]{6,34}$/, 'Give an IBAN or an account number: 6 to 34 letters and digits.')),
  routing: z
    .string()
    .trim()
    .max(40, 'At most 40 characters.')
    .regex(/^[A-Za-z0-9 -]*$/, 'Letters, digits, spaces and hyphens only.')
    .optional()
    .transform((v) => (v ? v : undefined)),
});

export type ManualDetails = z.infer<typeof manualDetails>;

/** What the sealed value is for: bound into it, so it opens as nothing else. */
export const PAYOUT_DETAILS_PURPOSE = 'payout-details';

/** The details as everyone but the sender sees them: the holder and the account's last four. */
export function maskDetails(d: ManualDetails): string {
  return `${d.account_holder} · •••• ${d.account.slice(-4)}`;
}

/** The details sealed for the database, and their masked form. */
export function sealDetails(key: Buffer, d: ManualDetails): { ciphertext: string; masked: string } {
  return { ciphertext: seal(key, JSON.stringify(d), PAYOUT_DETAILS_PURPOSE), masked: maskDetails(d) };
}
