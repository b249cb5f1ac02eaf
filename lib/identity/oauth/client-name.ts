/**
 * The rule for a client's name, the text the consent page shows in its heading ("<name> wants to
 * read your Monetize account"), for both ways a client comes to exist: registration (RFC 7591,
 * clients.ts) and client ID metadata documents fetched from the web (client-metadata.ts).
 *
 * A name is printable text: no character of the Unicode categories Cc (controls), Cf (format:
 * the bidirectional embeddings, overrides and isolates U+202A–U+202E and U+2066–U+2069, the
 * marks U+200E, U+200F and U+061C, the zero-width characters U+200B–U+200D, U+FEFF, the soft
 * hyphen, tags), Zl and Zp (line and paragraph separators), Co (private use), Cs (lone
 * surrogates) or Cn (unassigned). Those are invisible or change how the text around them is
 * laid out: U+202E reverses the rest of the heading, so a name could make the page read
 * something else than what it says. Letters of right-to-left scripts need none of them.
 *
 * A name with such a character is refused, never cleaned: removing invisible characters can
 * turn one name into another ("Goo\u200Bgle" into "Google"). Names stored before the rule are
 * shown through `displayClientName`, and every page shows a name isolated from the text around
 * it (`<bdi>` in markup, `isolate` in plain text).
 */

export const MAX_CLIENT_NAME = 100;

const REFUSED = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cs}\p{Cn}]/u;
const REFUSED_ALL = new RegExp(REFUSED.source, 'gu');

export type ClientNameCheck = { ok: true; name: string } | { ok: false; reason: string };

const codePoint = (c: string) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/** Checks a `client_name` as received; the name to keep is trimmed. `reason` names the field. */
export function checkClientName(value: unknown): ClientNameCheck {
  const required = `client_name is required, 1 to ${MAX_CLIENT_NAME} characters: the consent page shows it to the user`;
  if (typeof value !== 'string') return { ok: false, reason: required };
  // Checked before trimming: String.prototype.trim also drops U+FEFF, U+2028 and U+2029.
  const bad = REFUSED.exec(value);
  if (bad) {
    return {
      ok: false,
      reason: `client_name must be printable text: ${codePoint(bad[0])} is a control, format, separator, private-use or unassigned character, which could disguise the name on the consent page`,
    };
  }
  const name = value.trim();
  const length = [...name].length;
  if (length === 0 || length > MAX_CLIENT_NAME) return { ok: false, reason: required };
  return { ok: true, name };
}

/**
 * A stored name as pages show it: each character the rule refuses becomes U+FFFD, visibly. Only
 * names stored before the rule have any.
 */
export function displayClientName(name: string): string {
  return name.replace(REFUSED_ALL, '\ufffd');
}

/**
 * Plain text isolated from what surrounds it (FIRST STRONG ISOLATE … POP DIRECTIONAL ISOLATE),
 * for places that cannot hold `<bdi>`: a page title, an attribute, a confirmation question.
 */
export function isolate(text: string): string {
  return `\u2068${text}\u2069`;
}
