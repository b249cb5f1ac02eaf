import { createHmac, randomBytes } from 'node:crypto';
import { sha256Hex } from '../platform/crypto';
import { addressHash } from '../platform/http/client-ip';

/**
 * Who a consent belongs to, and how its owner proves it (content/docs/data-and-consent.md,
 * SECURITY.md "Consent proofs").
 *
 * - **Subject ids keyed per app.** An app names its user by the SHA-256 of its own user id. That
 *   is guessable (`"42"`, an email) and the same in every app, so the tables never keep it: they
 *   keep HMAC-SHA256, under a key of the service's, of the app and that id. Two apps' rows of one
 *   person cannot be joined, and a dictionary of user ids finds nothing without the key. Answers
 *   name the id the caller sent, never the stored one.
 * - **Consent proofs.** A subject's first consent in an app answers a random secret, the consent
 *   proof (`cp_` and 32 random bytes in base64url), which the tables keep only as its SHA-256.
 *   Reading, withdrawing and changing the consent, and submitting data, need it in
 *   `x-consent-proof`: the publishable key alone, public in every page, no longer speaks for a
 *   user who consented.
 *
 * The keys are derived from the service's SDK secret (`Services.sdkSecret`, the same on every
 * instance), one per purpose and never the secret itself: HMAC(secret, purpose). Rotating that
 * secret would change every stored subject id (ARCHITECTURE.md, Money path).
 */

export const CONSENT_PROOF_HEADER = 'x-consent-proof';

/** A consent proof as the service makes them: `cp_` and 43 base64url characters (32 bytes). */
export const CONSENT_PROOF_PATTERN = /^cp_[A-Za-z0-9_-]{43}$/;

/** A new consent proof: shown once to the caller, stored only as `proofHash`. */
export function newConsentProof(): string {
  return `cp_${randomBytes(32).toString('base64url')}`;
}

/** What the tables keep of a proof. */
export function proofHash(proof: string): string {
  return sha256Hex(proof);
}

/** The proof a request presents, or null: none, or a value that is no proof (answered as a wrong one). */
export function presentedProof(headers: Headers): string | null {
  const value = headers.get(CONSENT_PROOF_HEADER);
  return value !== null && CONSENT_PROOF_PATTERN.test(value) ? value : null;
}

/** The keys of consented data, each for one purpose, derived from the service's SDK secret. */
export interface SubjectKeys {
  /** Keys subject ids per app. */
  subjects: Buffer;
  /** Hashes client addresses for the count of new subjects per address. */
  addresses: Buffer;
}

export function subjectKeys(secret: Buffer): SubjectKeys {
  const derive = (purpose: string) => createHmac('sha256', secret).update(purpose).digest();
  return { subjects: derive('subject-ids'), addresses: derive('consent-addresses') };
}

/**
 * The subject id of a user as the SDK makes it (the SHA-256 of the app's user id, in hex): `user`
 * itself when it is one already.
 */
export function subjectIdOf(user: string): string {
  return /^[0-9a-f]{64}$/.test(user) ? user : sha256Hex(user);
}

/** The subject id the tables keep for `subjectId` (64 hex digits, as the app sent it) in `appId`: 64 hex digits. */
export function storedSubjectId(keys: SubjectKeys, appId: string, subjectId: string): string {
  return createHmac('sha256', keys.subjects).update(`${appId}\n${subjectId}`).digest('hex');
}

/** The client's address as the count of new subjects keeps it: keyed, never the address. */
export function arrivalAddress(keys: SubjectKeys, clientIp: string): string {
  return addressHash(keys.addresses, clientIp);
}

/**
 * The transaction-level advisory lock of one subject (two 32-bit keys): whoever changes its
 * consent or deletes its data takes it alone, a submission takes it shared, so a withdrawal
 * waits for the submissions under way and then deletes what they stored.
 */
export function subjectLock(storedId: string): [number, number] {
  return [SUBJECT_LOCK_CLASS, Number.parseInt(storedId.slice(0, 8), 16) | 0];
}

/** The first of the two lock keys: "subj" in ASCII, so no other lock of the service shares it. */
const SUBJECT_LOCK_CLASS = 0x7375626a;
