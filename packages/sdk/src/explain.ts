/**
 * What the browser console tells a page's developer when the service refuses the SDK's requests
 * (or cannot be reached): the cause and its fix, once per cause per page load, whichever client
 * or copy of the SDK (the script and a bundled package) met it. `console.error` for what the
 * developer must fix (a key, an origin, a placement), `console.warn` for what passes by itself
 * (a rate limit, the service or the network down). The page itself is told nothing new: its
 * `error` events and fallbacks are as they were, and nothing here throws.
 */

/** A refused request, as the SDK read it. */
export interface Refusal {
  /** The answer's status; 0 when there was no answer (the network, a blocker, a wrong baseUrl). */
  status: number;
  /** The error envelope's `code`, when the answer has one. */
  code?: string;
  /** The envelope's `message` (or the status text, or the network error's message). */
  message: string;
  /** The answer's `Retry-After`, in seconds. */
  retryAfter?: string | null;
  /** The placement of an ad request. */
  placementId?: string;
}

/** Who asked: the client's key and the service's address, and the page's origin. */
export interface Asker {
  key: string;
  base: string;
  origin?: string;
}

export interface Explanation {
  level: 'error' | 'warn';
  /** What makes two refusals the same cause, told once. */
  cause: string;
  text: string;
}

/** A publishable key as the console lists it (its first 16 characters, `…`, its last 4), or null for anything that is not a key. */
export function maskKey(key: string): string | null {
  return /^pk_(live|test)_[A-Za-z0-9]{32}$/.test(key) ? `${key.slice(0, 16)}…${key.slice(-4)}` : null;
}

/**
 * The cause of a refusal and what to say. The status and code decide, as the docs tell clients
 * to; a 403 `forbidden` has three causes that only its message tells apart (the words "origin",
 * "revoked" and "archived", held to the service's messages by test/explain.test.ts), and is
 * passed on as it is when none of them is in it. The docs (content/docs/sdk-integration.md,
 * "When a request is refused") quote the start of each text, and the whole of the origin's.
 */
export function explain(r: Refusal, asker: Asker): Explanation {
  const { status, message } = r;
  const masked = maskKey(asker.key);
  const key = masked ? `key ${masked}` : 'the key given to createClient';
  const where = `in the console at ${asker.base}/dashboard`;
  const origin = asker.origin && asker.origin !== 'null' ? asker.origin : "this page's origin";
  // What to say, the cause's name, and what else tells its causes apart: the service's troubles
  // are one cause for every key, a key's are one per key (and placement).
  let said: string[];
  if (!status) {
    said = [`could not reach the service at ${asker.base} (${message}): check the baseUrl given to createClient, the network and content blockers.`, 'network'];
  } else if (status === 429) {
    said = [`over the rate limit: requests are refused${r.retryAfter && /^\d+$/.test(r.retryAfter) ? ` for ${r.retryAfter} s` : ''}.`, '429'];
  } else if (status >= 500) {
    said = ['the service could not answer.', '5xx'];
  } else if (status === 401) {
    said = [
      `${masked ? `the service knows no ${key}` : 'the key given to createClient is not a publishable key (pk_live_ or pk_test_ and 32 letters and digits)'}. Fix: copy your app's key ${where}.`,
      '401',
      asker.key,
    ];
  } else if (status === 403 && /origin/i.test(message)) {
    said = [
      `this page may not use ${key}: ${origin} is not one of the allowed web origins of the key's app, so no ads are shown. Fix: add ${origin} to "Allowed web origins" in the app's settings, ${where}; it applies within 5 seconds.`,
      'origin',
      asker.key,
      origin,
    ];
  } else if (status === 403 && /revoked/i.test(message)) {
    said = [`${key} was revoked. Fix: create a key for the app ${where}.`, 'revoked', asker.key];
  } else if (status === 403 && /archived/i.test(message)) {
    said = [`the app of ${key} was archived, so its keys no longer work.`, 'archived', asker.key];
  } else if (status === 404 && r.placementId !== undefined) {
    said = [
      `no ads for placement ${r.placementId}: it is not a placement of the app of ${key}. Fix: copy the placement's id ${where}.`,
      '404',
      asker.key,
      r.placementId,
    ];
  } else {
    said = ['a request was refused.', String(status), asker.key, message];
  }
  const [text, name, ...of] = said;
  return {
    // The service's troubles pass by themselves: a warning. A key's are the developer's to fix.
    level: of.length ? 'error' : 'warn',
    cause: [name, asker.base, ...of].join('|'),
    text: status ? `${text} (The service answered ${status}${r.code ? ` ${r.code}` : ''}: ${message})` : text!,
  };
}

/** The causes the console has been told of on this page, by every client and copy of the SDK. */
const told: Set<string> = ((globalThis as { [key: symbol]: Set<string> })[Symbol.for('monetize.explained')] ??= new Set());

/** Tells the console why, once per cause per page load. */
export function tell(r: Refusal, asker: Asker): void {
  try {
    const { level, cause, text } = explain(r, { origin: globalThis.location?.origin, ...asker });
    if (told.has(cause)) return;
    told.add(cause);
    console[level](`Monetize SDK: ${text}`);
  } catch {
    // A console that throws is the page's: nothing of the SDK's throws into it.
  }
}
