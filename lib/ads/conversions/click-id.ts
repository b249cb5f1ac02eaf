import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Click ids (`mclid`). A click through an ad's click URL lands on the advertiser's page with
 * `?mclid=<decision>.<signature>`: the decision the click was on (a UUID) and an HMAC-SHA256 of it
 * under a key derived from the service's token key, 22 base64url characters (128 bits). The
 * advertiser sends it back with a conversion; the signature proves we made it, and the decision
 * names the one campaign, creative and app the click was on, so a click id cannot be forged or
 * moved to another campaign. Nothing in it is about the person who clicked.
 */

const VERSION = 'mclid.v1';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SIGNATURE_LENGTH = 22;

/** The click ids' own key: the token key is never used as it is for a second purpose. */
export function clickIdKey(tokenKey: Buffer): Buffer {
  return createHmac('sha256', tokenKey).update('click ids').digest();
}

function signature(key: Buffer, decisionId: string): string {
  return createHmac('sha256', key).update(`${VERSION}.${decisionId}`).digest('base64url').slice(0, SIGNATURE_LENGTH);
}

export function signClickId(key: Buffer, decisionId: string): string {
  return `${decisionId}.${signature(key, decisionId)}`;
}

/** The decision a click id names when we signed it, else null. */
export function verifyClickId(key: Buffer, clickId: string): string | null {
  const dot = clickId.indexOf('.');
  if (dot < 0) return null;
  const decisionId = clickId.slice(0, dot);
  const sent = Buffer.from(clickId.slice(dot + 1));
  if (!UUID.test(decisionId) || sent.length !== SIGNATURE_LENGTH) return null;
  const expected = Buffer.from(signature(key, decisionId));
  return timingSafeEqual(sent, expected) ? decisionId : null;
}

/**
 * The landing URL with the click id added as its last query parameter, the rest of it exactly as
 * the advertiser wrote it (a signed or affiliate URL stays valid); an `mclid` it had is replaced.
 */
export function withClickId(landingUrl: string, clickId: string): string {
  const hash = landingUrl.indexOf('#');
  const beforeHash = hash < 0 ? landingUrl : landingUrl.slice(0, hash);
  const fragment = hash < 0 ? '' : landingUrl.slice(hash);
  const question = beforeHash.indexOf('?');
  const base = question < 0 ? beforeHash : beforeHash.slice(0, question);
  const kept = (question < 0 ? '' : beforeHash.slice(question + 1)).split('&').filter((p) => p !== '' && !/^mclid(=|$)/.test(p));
  return `${base}?${[...kept, `mclid=${encodeURIComponent(clickId)}`].join('&')}${fragment}`;
}
