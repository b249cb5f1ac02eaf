import { tell, type Refusal } from './explain';
import { drawAd } from './render';
import { reserve } from './styles';
import type { Ad, Consent, ContextMessage, Evidence, EventType, Format, Listener, MonetizeEvent, Purpose } from './types';
import { watchViewability } from './watch';
import { el, openWhy } from './why';
import { trimContext } from './context';

export { CONTEXT_LIMITS, trimContext } from './context';

export const VERSION = '1.5.0';

export interface ClientOptions {
  /** The app's publishable key (`pk_live_…` or `pk_test_…`). */
  key: string;
  /** The service's address; the page's own origin when left out. */
  baseUrl?: string;
  /** A random id for this visit, for campaigns' frequency caps; one is made per page load when left out. */
  sessionId?: string;
  /** How long an ad request may take before the placement shows its fallback (ms, default 3000). */
  timeoutMs?: number;
}

export interface AdOptions {
  /** Up to 10 words about the page or the conversation; ads that match them are preferred. */
  keywords?: string[];
  /**
   * The conversation the ad will sit beside, oldest message first. The latest messages are sent
   * (6 and 4,000 characters at most: `trimContext`); only campaigns that fit it are shown, and a
   * sensitive conversation gets none. The service uses it for this one ad and stores none of it.
   */
  context?: { messages: ContextMessage[] };
}

export interface RenderOptions extends AdOptions {
  /** The placement's format: the slot keeps its room before the ad arrives, so nothing on the page moves. */
  format?: Format;
  /** What the slot shows when no ad fills or the request fails: text, a node, or a function making one. */
  fallback?: string | Node | (() => Node | string);
  /**
   * For a sponsored follow-up whose `ad.action` is `ask`: called with its question (the headline)
   * when the user clicks it, for the page to ask it in its chat. The link then opens nothing, and
   * the SDK sends the click as an event, once. Without it, or for `visit`, the click opens the
   * ad's click URL. What it throws is an `error` event.
   */
  onAsk?: (question: string) => void;
}

/** For the consent and data calls. */
export interface ConsentOptions {
  /**
   * The user's consent proof, for apps that keep it themselves (on their server, with the user's
   * account, so that it follows the user to other devices). Left out, the SDK uses the one it
   * kept in this browser for this key and user.
   */
  proof?: string;
}

/** A placement rendered into the page. */
export interface Placement {
  /** The ad shown, or null (no fill, failure, or not yet answered). */
  readonly ad: Ad | null;
  /** Removes the ad and stops watching it; an impression already sent stays counted. */
  destroy(): void;
}

/** Events kept while the service cannot be reached; past it, the newest are dropped. */
const MAX_WAITING = 1000;
/** Sends tried for the same events before they are dropped. */
const MAX_TRIES = 5;

interface QueuedEvent {
  id: string;
  type: 'impression' | 'click' | 'hide';
  token: string;
  viewability?: Evidence;
}

// Per page, whichever client or copy of the SDK (the script and the package) saw them: one
// impression per decision. The service counts one anyway; this saves sending the others.
const impressed: Set<string> = ((globalThis as { [key: symbol]: Set<string> })[Symbol.for('monetize.impressed')] ??= new Set());
/** The decisions whose click this copy of the SDK sent (a follow-up asked in the page's chat). */
const clicked = new Set<string>();

/** The page's monotonic clock, in ms: unlike `Date.now()`, neither wrong nor set back by the device. */
const monotonic = (): number => (typeof performance !== 'undefined' ? performance.now() : Date.now());

/**
 * When each ad this copy of the SDK received stops being valid, by decision, on the monotonic
 * clock: its time to live is `expires_at` less the service's `Date` header, both the service's
 * clock, counted from its arrival, so a device whose clock is wrong keeps or drops nothing it
 * should not. An answer without a readable `Date` leaves the ad's expiry to the service.
 */
const deadlines = new Map<string, number>();

function keepDeadline(ad: Ad, date: string | null): void {
  const ttl = Date.parse(ad.expires_at) - Date.parse(date ?? '');
  const now = monotonic();
  for (const [id, at] of deadlines) if (at <= now) deadlines.delete(id);
  // The header counts whole seconds: up to one more than the ad has.
  deadlines.set(ad.decision_id, Number.isFinite(ttl) ? now + ttl - 1000 : Infinity);
}

/** Whether an ad is past its expiry: by its deadline when this SDK received it, by the device's clock otherwise. */
function expired(ad: Ad): boolean {
  const deadline = deadlines.get(ad.decision_id);
  return deadline !== undefined ? monotonic() >= deadline : Date.now() >= Date.parse(ad.expires_at);
}

/** Where a consent proof is kept in the browser: per app key and subject. */
const proofName = (key: string, subject: string): string => `monetize:consent-proof:${key}:${subject}`;

/** The storage of consent proofs, or null where the page may not use it (blocked storage, a sandboxed frame). */
function proofStore(): Storage | null {
  try {
    return globalThis.localStorage ?? null;
  } catch {
    return null;
  }
}

/** Why the service refused: its error envelope's code and message (the status text when the answer has none). */
async function reason(res: Response): Promise<Refusal> {
  const refusal: Refusal = { status: res.status, message: res.statusText, retryAfter: res.headers.get('retry-after') };
  try {
    const { error } = (await res.json()) as { error?: { code?: unknown; message?: unknown } };
    if (typeof error?.code === 'string') refusal.code = error.code;
    if (typeof error?.message === 'string') refusal.message = error.message;
  } catch {
    // Not the envelope: the status says what there is to say.
  }
  return refusal;
}

/** What a failed fetch says. */
const messageOf = (error: unknown): string => String((error as Error | null)?.message ?? error);

/** Whether a value is an object (not null). */
const isObject = (value: unknown): value is object => typeof value === 'object' && value !== null;

/** Whether an answer is an ad this SDK can show: its fields, and a web link to click. */
export function isAd(value: unknown): value is Ad {
  const ad = value as Ad | null;
  return (
    isObject(ad) &&
    ['floating_video', 'tooltip', 'sponsored_card', 'inline_text', 'sponsored_follow_up'].includes(ad.format) &&
    typeof ad.decision_id === 'string' &&
    typeof ad.token === 'string' &&
    typeof ad.click_url === 'string' &&
    /^https?:\/\//.test(ad.click_url) &&
    isObject(ad.ad) &&
    isObject(ad.viewability)
  );
}

/** Session ids the service takes: 8 to 64 letters, digits, `_`, `.`, `:` or `-`. */
const SESSION_ID = /^[A-Za-z0-9_.:-]{8,64}$/;

/**
 * Keywords as the service takes them: lowercase letters, digits, spaces and `-`; anything else
 * becomes a space; empty and repeated words dropped; 10 words and 200 characters at most.
 */
export function cleanKeywords(words: readonly string[] | string): string {
  const kept: string[] = [];
  // A page without types may pass one comma-separated string.
  for (const word of typeof words === 'string' ? words.split(',') : words) {
    const clean = String(word)
      .toLowerCase()
      .replace(/[^a-z0-9 -]+/g, ' ')
      .replace(/\s+/g, ' ')
      .slice(0, 40)
      .trim();
    if (clean && !kept.includes(clean) && kept.length < 10 && [...kept, clean].join(',').length <= 200) kept.push(clean);
  }
  return kept.join(',');
}

/** Bytes as lowercase hex. */
const hex = (bytes: ArrayBuffer | Uint8Array): string => Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, '0')).join('');

const randomId = (): string => hex(crypto.getRandomValues(new Uint8Array(16)));

/**
 * One publisher app's connection to the service: ads for its placements, their impressions, and
 * its users' consent and data. Nothing it does throws into the page: failures become `error`
 * events and the placement's fallback.
 */
export class MonetizeClient {
  readonly sessionId: string;
  private readonly base: string;
  private readonly listeners = new Set<Listener>();
  private queue: QueuedEvent[] = [];
  private flushTimer: ReturnType<typeof setTimeout> | undefined;
  /** Failed sends in a row; after MAX_TRIES the events waiting are dropped. */
  private failures = 0;

  constructor(private readonly options: ClientOptions) {
    this.base = (options.baseUrl ?? globalThis.location?.origin ?? '').replace(/\/+$/, '');
    if (options.sessionId !== undefined && !SESSION_ID.test(options.sessionId)) {
      console.warn('Monetize SDK: sessionId must be 8 to 64 letters, digits, _ . : or -; a random one is used instead.');
    }
    this.sessionId = options.sessionId !== undefined && SESSION_ID.test(options.sessionId) ? options.sessionId : randomId();
    if (typeof addEventListener === 'function') {
      // Leaving the page, or hiding it (the last moment a mobile browser promises): send what waits.
      addEventListener('pagehide', () => this.flush(true));
      addEventListener('visibilitychange', () => {
        if (document.visibilityState === 'hidden') this.flush(true);
      });
    }
  }

  /** Listens to `filled`, `no-fill`, `viewable`, `clicked`, `hidden` and `error`; answers a function that stops listening. */
  on(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Tells the page's developer, in the console, why the service refused: once per cause and page (explain.ts). */
  private explain(refusal: Refusal): void {
    tell(refusal, { key: this.options.key, base: this.base });
  }

  private emit(type: EventType, placementId: string, extra: Partial<MonetizeEvent> = {}): void {
    for (const listener of this.listeners) {
      try {
        listener({ type, placementId, ...extra });
      } catch (error) {
        // A listener's bug is the host's to see, not a reason to stop the others.
        setTimeout(() => {
          throw error;
        });
      }
    }
  }

  /**
   * The ad for a placement, for apps that draw their own: null when nothing fills or the request
   * fails (an `error` event says why). Send its impression with `trackImpression`.
   */
  async getAd(placementId: string, options: AdOptions = {}, signal?: AbortSignal): Promise<Ad | null> {
    try {
      const query = new URLSearchParams({ placement_id: placementId, session_id: this.sessionId });
      const keywords = cleanKeywords(options.keywords ?? []);
      if (keywords) query.set('keywords', keywords);
      const messages = trimContext(options.context?.messages ?? []);
      // With a conversation, a POST: the conversation goes in its body, never in a URL.
      const init: RequestInit = messages.length
        ? {
            method: 'POST',
            headers: { 'x-api-key': this.options.key, 'content-type': 'application/json' },
            body: JSON.stringify({
              placement_id: placementId,
              session_id: this.sessionId,
              keywords: keywords ? keywords.split(',') : [],
              context: { messages },
            }),
          }
        : { headers: { 'x-api-key': this.options.key } };
      const timeout = new AbortController();
      const timer = setTimeout(() => timeout.abort(), this.options.timeoutMs ?? 3000);
      signal?.addEventListener('abort', () => timeout.abort());
      try {
        let res: Response;
        try {
          res = await fetch(`${this.base}/functions/v1/ads${messages.length ? '' : `?${query}`}`, { ...init, signal: timeout.signal });
        } catch (error) {
          // No answer at all; a timeout or destroy() is no reason to tell the console.
          if (!timeout.signal.aborted) this.explain({ status: 0, message: messageOf(error) });
          throw error;
        }
        if (res.status === 204) {
          this.emit('no-fill', placementId, { reason: res.headers.get('no-fill-reason') ?? undefined });
          return null;
        }
        if (!res.ok) {
          const refusal = await reason(res);
          this.explain({ ...refusal, placementId });
          throw new Error(`ad request answered ${res.status}: ${refusal.message}`);
        }
        const ad: unknown = await res.json();
        if (!isAd(ad)) throw new Error('the ad request answered something that is not an ad');
        keepDeadline(ad, res.headers.get('date'));
        this.emit('filled', placementId, { ad });
        return ad;
      } finally {
        clearTimeout(timer);
      }
    } catch (error) {
      if (!signal?.aborted) this.emit('error', placementId, { error });
      return null;
    }
  }

  /**
   * Fills `target` (an element or a selector) with an ad of the placement, or its fallback, and
   * sends the ad's impression once it has been viewable. The ad carries "Why this ad?", whose
   * "Hide this ad" hides it (`hide`) and leaves a short note in its place. Never throws.
   */
  render(target: Element | string, placementId: string, options: RenderOptions = {}): Placement {
    return this.place(target, placementId, options, (signal) => this.getAd(placementId, options, signal));
  }

  /**
   * Fills `target` with an ad the app's server fetched (`findAd` reads it from the answer's
   * text), as `render` does: its format, "Why this ad?", and its impression once viewable, from
   * this browser, the client the server named. Never throws: what is not an ad is an `error`
   * event and the fallback.
   */
  show(target: Element | string, ad: unknown, options: Pick<RenderOptions, 'fallback' | 'onAsk'> = {}): Placement {
    const shown = isAd(ad) ? ad : null;
    if (!shown) this.emit('error', '', { error: new Error('show() was given something that is not an ad') });
    else this.emit('filled', shown.placement_id, { ad: shown });
    return this.place(target, shown?.placement_id ?? '', { ...options, format: shown?.format }, async () => shown);
  }

  private place(target: Element | string, placementId: string, options: RenderOptions, source: (signal: AbortSignal) => Promise<Ad | null>): Placement {
    let ad: Ad | null = null;
    let stopWatching = (): void => {};
    let remove = (): void => {};
    const abort = new AbortController();
    const placement: Placement = {
      get ad() {
        return ad;
      },
      destroy: () => {
        abort.abort();
        stopWatching();
        remove();
      },
    };
    let slot: HTMLElement | null = null;
    try {
      slot = typeof target === 'string' ? document.querySelector<HTMLElement>(target) : (target as HTMLElement | null);
    } catch {
      // Not a selector at all: the same as a selector that matches nothing.
    }
    if (!slot || slot.nodeType !== 1) {
      this.emit('error', placementId, { error: new Error(`no element ${typeof target === 'string' ? target : '(not an element)'} to render into`) });
      return placement;
    }
    try {
      reserve(slot, options.format);
    } catch (error) {
      this.emit('error', placementId, { error });
    }
    const into: HTMLElement = slot;
    const showFallback = (): void => {
      try {
        const fallback = typeof options.fallback === 'function' ? options.fallback() : options.fallback;
        if (fallback !== undefined) into.replaceChildren(fallback);
      } catch (error) {
        this.emit('error', placementId, { error });
      }
    };
    void source(abort.signal).then((found) => {
      if (abort.signal.aborted) return;
      if (!found) return showFallback();
      try {
        let closeWhy = (): void => {};
        const drawn = drawAd(
          into,
          found,
          () => placement.destroy(),
          (button) =>
            (closeWhy = openWhy(button, found, () => {
              placement.destroy();
              ad = null;
              this.hide(found);
              if (found.format !== 'floating_video') {
                // Said to screen readers, and where the focus goes from the panel's Hide button.
                const note = el(document, 'span', 'mz-note', 'Ad hidden');
                note.setAttribute('role', 'status');
                note.tabIndex = -1;
                into.replaceChildren(note);
                note.focus({ preventScroll: true });
              }
            })),
        );
        ad = found;
        remove = () => {
          closeWhy();
          drawn.root.remove();
        };
        drawn.link.addEventListener('click', (event) => {
          this.emit('clicked', placementId, { ad: found });
          if (found.ad.action !== 'ask' || !options.onAsk) return;
          // Asked in the page's chat: the link opens nothing, so the SDK counts the click itself,
          // once per decision. Sent at once, after the impression if it still waits. The service
          // counts no click before its impression: one sooner is not sent, and a later one counts.
          event.preventDefault();
          if (impressed.has(found.decision_id) && !clicked.has(found.decision_id)) {
            clicked.add(found.decision_id);
            this.send(found, 'click');
          }
          try {
            options.onAsk(found.ad.headline);
          } catch (error) {
            this.emit('error', placementId, { ad: found, error });
          }
        });
        stopWatching = this.trackImpression(found, drawn.root, drawn.video);
      } catch (error) {
        this.emit('error', placementId, { error });
        showFallback();
      }
    });
    return placement;
  }

  /**
   * Watches an ad the app drew itself (`element`, and its `video` for video ads) and sends its
   * impression once it has been viewable: once per decision, whatever is rendered again.
   * Answers a function that stops watching.
   */
  trackImpression(ad: Ad, element: Element, video: HTMLVideoElement | null = null): () => void {
    if (impressed.has(ad.decision_id)) return () => {};
    try {
      return watchViewability(element, ad.viewability, video, (evidence) => this.viewed(ad, evidence));
    } catch (error) {
      this.emit('error', ad.placement_id, { ad, error });
      return () => {};
    }
  }

  /**
   * Hides an ad at its user's request ("Hide this ad"): the service records it once, bills
   * nothing, and does not show that campaign to this browser on this app for 30 days. Sent at
   * once. An app that draws its own ads calls it and removes the ad; `render`'s ads do both
   * from their "Why this ad?" panel.
   */
  hide(ad: Ad): void {
    this.emit('hidden', ad.placement_id, { ad });
    this.send(ad, 'hide');
  }

  /**
   * Sends an event of an ad at once, after those waiting (an impression goes before its click),
   * under the decision's own id: the service counts it once, however often it comes.
   */
  private send(ad: Ad, type: 'click' | 'hide'): void {
    this.queue.push({ id: `${ad.decision_id}.${type}`, type, token: ad.token });
    this.flush();
  }

  /** An ad met its rule: its impression waits to be sent, once per decision, while the ad is valid. */
  private viewed(ad: Ad, evidence: Evidence): void {
    if (impressed.has(ad.decision_id)) return;
    // Past its expiry the service would refuse it: the page should ask for a new ad instead.
    if (expired(ad)) {
      this.emit('error', ad.placement_id, { ad, error: new Error('the ad expired before it was viewable; ask for a new one') });
      return;
    }
    impressed.add(ad.decision_id);
    // The id is the decision's: sent again by anything, the service counts it once.
    this.queue.push({ id: `${ad.decision_id}.impression`, type: 'impression', token: ad.token, viewability: evidence });
    this.emit('viewable', ad.placement_id, { ad, evidence });
    // Within a second of the first event waiting: a steady stream of them still leaves.
    this.flushTimer ??= setTimeout(() => this.flush(), 1000);
  }

  /**
   * Sends the events waiting. `beacon`: as `navigator.sendBeacon` (the page is going away; the
   * ads' tokens authenticate it). A failed send keeps them for the next try.
   */
  flush(beacon = false): void {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    if (this.queue.length === 0) return;
    const events = this.queue.splice(0, 100);
    const body = JSON.stringify({ events });
    const url = `${this.base}/functions/v1/events`;
    const beaconed = beacon && typeof navigator !== 'undefined' && navigator.sendBeacon?.(url, new Blob([body], { type: 'text/plain' }));
    if (!beaconed) {
      fetch(url, { method: 'POST', keepalive: true, headers: { 'x-api-key': this.options.key, 'content-type': 'application/json' }, body })
        // No answer at all (the network, a blocker, a wrong baseUrl): the console is told.
        .catch((error: unknown) => {
          this.explain({ status: 0, message: messageOf(error) });
          throw error;
        })
        .then(async (res) => {
          if (res.ok) {
            this.failures = 0;
            // Each event's outcome: anything not recorded (or already recorded) is worth knowing.
            const answer = (await res.json().catch(() => null)) as { results?: { id: string; status: string; reason?: string }[] } | null;
            for (const r of answer?.results ?? []) {
              if (r.status !== 'recorded' && r.status !== 'duplicate')
                this.emit('error', '', { error: new Error(`event ${r.id} ${r.status}${r.reason ? `: ${r.reason}` : ''}`) });
            }
            return;
          }
          const refusal = await reason(res);
          this.explain(refusal);
          // Refused for good (a 4xx but 429): sending them again would change nothing.
          if (res.status !== 429 && res.status < 500) {
            this.failures = 0;
            return this.emit('error', '', { error: new Error(`events refused: ${res.status} ${refusal.message}`) });
          }
          throw new Error(`events answered ${res.status}`);
        })
        .catch((error) => {
          this.emit('error', '', { error });
          // No answer, a 429 or a 5xx: after MAX_TRIES failed sends in a row, with growing
          // pauses (5, 10, 20, 40 s), what failed is dropped. The count is the client's,
          // whichever batch failed.
          if (++this.failures >= MAX_TRIES) {
            this.failures = 0;
            return;
          }
          // Kept for the next try, before anything newer, up to MAX_WAITING.
          this.queue.unshift(...events);
          this.queue.splice(MAX_WAITING);
          clearTimeout(this.flushTimer);
          this.flushTimer = setTimeout(() => this.flush(), 5000 * 2 ** (this.failures - 1));
        });
    }
    if (this.queue.length > 0) this.flush(beacon);
  }

  /** The subject id of one of your users: the SHA-256 of your own id for them, never the id itself. */
  async subjectId(userId: string): Promise<string> {
    return hex(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(userId)));
  }

  /**
   * A consent or data call for one user: their subject id goes in the JSON `body` (in the query
   * without one), with their consent proof, the app's own or the one kept in this browser. A
   * proof in the answer is kept. Rejects with the service's message; a GET of nothing is null.
   */
  private async call<T>(method: string, path: string, userId: string, options: ConsentOptions, body?: object): Promise<T> {
    const subject = await this.subjectId(userId);
    const name = proofName(this.options.key, subject);
    const headers: Record<string, string> = { 'x-api-key': this.options.key };
    let proof = options.proof;
    try {
      proof ||= proofStore()?.getItem(name) ?? undefined;
    } catch {
      // Storage refused: no proof but the app's.
    }
    if (proof) headers['x-consent-proof'] = proof;
    if (body) headers['content-type'] = 'application/json';
    const res = await fetch(`${this.base}/functions/v1/${path}${body ? '' : `?subject_id=${subject}`}`, {
      method,
      headers,
      body: body && JSON.stringify({ subject_id: subject, ...body }),
    });
    if (res.status === 404 && method === 'GET') return null as T;
    const answer = (await res.json()) as T & { error?: { message: string }; consent_proof?: string };
    if (!res.ok) throw new Error(answer.error?.message ?? `answered ${res.status}`);
    if (answer.consent_proof) {
      try {
        proofStore()?.setItem(name, answer.consent_proof);
      } catch {
        // Storage full or refused: the app still has the proof in the answer.
      }
    }
    return answer;
  }

  /**
   * Records what a user agreed to, or a change of it. The answer's `consent_proof` is what lets
   * this user, and no one else, read, change or withdraw the consent and submit data: the SDK
   * keeps it in this browser (localStorage) and sends it with the calls below; an app that keeps
   * it itself passes it in `options`. Unlike ads, these calls reject on failure: consent must not
   * be assumed.
   */
  recordConsent(userId: string, purposes: Purpose[], policyVersion: string, options: ConsentOptions = {}): Promise<Consent> {
    return this.call('POST', 'consents', userId, options, { purposes, policy_version: policyVersion });
  }

  /** A user's current consent, or null (none, or no proof of it in this browser). */
  getConsent(userId: string, options: ConsentOptions = {}): Promise<Consent | null> {
    return this.call('GET', 'consents', userId, options);
  }

  /** Withdraws a user's consent; their unsold data is deleted. The proof is kept: the user may consent again. */
  withdrawConsent(userId: string, options: ConsentOptions = {}): Promise<{ withdrawn: boolean; deleted_records: number }> {
    return this.call('DELETE', 'consents', userId, options);
  }

  /** Submits records of a user who consented to their purpose (`ai_interaction`: prompt and response; `ux_session`). */
  submitData(
    userId: string,
    kind: 'ai_interaction' | 'ux_session',
    records: { id: string; data: Record<string, unknown> }[],
    options: ConsentOptions = {},
  ): Promise<{ received: number; stored: number; duplicates: number }> {
    return this.call('POST', 'data', userId, options, { kind, records });
  }
}

/** A client for one app's publishable key. */
export function createClient(options: ClientOptions): MonetizeClient {
  return new MonetizeClient(options);
}
