/**
 * The data buyers' enumerations (migration 20261209000000_data_buyers), as the database's CHECK
 * constraints allow them (tests/integration/schema-enums.test.ts holds the two together). The
 * data buyers' own module (lib/data/buyers/schemas.ts) spells the listings out as well, with what
 * each sells; lib/account/licenses.test.ts holds that list and this one together.
 */

/** What a license sells, one listing per unit the pricing sells: AI-interaction rows, UX-session recordings, GB bundles of both. */
export const LICENSE_LISTINGS = ['ai_interactions', 'ux_sessions', 'gb_bundles'] as const;
export type LicenseListing = (typeof LICENSE_LISTINGS)[number];

/**
 * A license's life: a standard one is `active` from its purchase; an exclusive one waits in
 * `pending_review` (its price reserved) until the operator makes it `active` (charged then) or
 * `rejected` (nothing charged, a reason given); an active one is `expired` at the end of its term.
 */
export const LICENSE_STATUSES = ['pending_review', 'active', 'rejected', 'expired'] as const;
export type LicenseStatus = (typeof LICENSE_STATUSES)[number];

/**
 * A deletion notice's delivery to the buyer's webhook (migration 20261211000000_deletion_webhooks):
 * `pending` until an attempt is answered 2xx (`delivered`) or the attempts run out, or the webhook
 * is removed, first (`failed`).
 */
export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];
