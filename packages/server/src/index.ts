/**
 * Monetize for an app's server: ask for the ad that will sit beside your model's answer while
 * the model writes it, and append it to the answer's stream as its last chunk.
 *
 * - `createServerClient({ key, baseUrl })` with the app's secret server key (`sk_live_…`).
 * - `getAd({ placementId, messages, client })` never throws and never waits past its timeout
 *   (300 ms by default): it answers the ad, or `null` when nothing fills, the service refuses,
 *   cannot be reached, or is slow. Start it before the model call, await it after.
 * - `appendAd(stream, ad)` passes the answer's chunks through as they come and, after the last,
 *   the ad as a labelled markdown chunk, with the data the page needs to show it and count it
 *   (`adMarkdown`, read back in the page by the browser SDK's `findAd`).
 *
 * Nothing but the platform's `fetch`, `AbortController` and `setTimeout`: Node 20 and edge
 * runtimes alike. The conversation goes to the ad request and nowhere else; the service reads it
 * for that one decision and keeps none of it.
 */

/** A message of the conversation the ad will sit beside. */
export interface Message {
  role: 'user' | 'assistant';
  content: string;
}

/** The end user's client, as your server received its request: the ad is bound to it. */
export interface EndUserClient {
  /** The user's IP address (IPv4 or IPv6). */
  ip: string;
  /** The `User-Agent` header of the user's request. */
  userAgent: string;
}

/** An ad, as `POST /functions/v1/ads` answers it (content/docs/sdk-integration.md). */
export interface ServerAd {
  decision_id: string;
  placement_id: string;
  format: string;
  ad: {
    id: string;
    advertiser: string;
    headline: string;
    body: string;
    cta: string;
    image_url: string | null;
    video_url: string | null;
    label: 'Sponsored';
    /**
     * A sponsored follow-up's (a suggested next question): what a click does. `ask`: the page asks
     * the question in its chat (the browser SDK's `onAsk`); `visit`: it opens `click_url`. In
     * markdown (`adMarkdown`) the question links to `click_url` either way.
     */
    action?: 'ask' | 'visit';
  };
  /** Link the ad to it: the click counts wherever it is opened. */
  click_url: string;
  /** The browser SDK sends it with the impression, once the ad has been viewable. */
  token: string;
  expires_at: string;
  viewability: { min_visible_share: number; min_seconds: number; large_ad?: { min_visible_share: number; min_seconds: number; min_area_px: number } };
  relevance?: number;
  why?: { matched: string[] };
}

/** Why `getAd` answered `null`, for your logs (never the conversation). */
export type NoAd =
  | { reason: 'no_fill'; noFillReason: string | null }
  | { reason: 'timeout' }
  | { reason: 'refused'; status: number; code: string | null }
  | { reason: 'unreachable' }
  | { reason: 'invalid_answer' };

export interface ServerClientOptions {
  /** The app's server key, `sk_live_…` or `sk_test_…`: keep it in your server's environment. */
  key: string;
  /** The service's origin, e.g. `https://monetize.example`. */
  baseUrl: string;
  /** How long an ad request may take before `getAd` answers `null` (default 300 ms). */
  timeoutMs?: number;
  /** Another `fetch` (tests, instrumentation); the platform's by default. */
  fetch?: typeof fetch;
  /** Told why a request answered `null`. */
  onNoAd?: (why: NoAd) => void;
}

export interface AdRequest {
  placementId: string;
  /** The latest messages, oldest first: the last 6 and 4,000 characters are sent (`latestMessages`). */
  messages: readonly Message[];
  client: EndUserClient;
  /** Overrides the client's timeout for this request. */
  timeoutMs?: number;
  /** Up to 10 words about the page or conversation (optional). */
  keywords?: readonly string[];
}

export const DEFAULT_TIMEOUT_MS = 300;
/** What one ad request may carry of a conversation (the service refuses more). */
export const CONTEXT_LIMITS = { messages: 6, characters: 4000 } as const;

/**
 * The latest messages within the service's limits: the last 6, and of those the newest that fit in
 * 4,000 characters; a message that does not fit whole keeps its end, the part nearest the answer.
 */
export function latestMessages(messages: readonly Message[]): Message[] {
  const out: Message[] = [];
  let room = CONTEXT_LIMITS.characters;
  for (let i = messages.length - 1; i >= 0 && out.length < CONTEXT_LIMITS.messages && room > 0; i--) {
    const m = messages[i]!;
    if (typeof m?.content !== 'string' || (m.role !== 'user' && m.role !== 'assistant')) continue;
    const content = m.content.length <= room ? m.content : m.content.slice(m.content.length - room);
    if (content.length === 0) continue;
    out.unshift({ role: m.role, content });
    room -= content.length;
  }
  return out;
}

export interface ServerClient {
  /** The ad for this placement and conversation, or `null`; never throws, never waits past the timeout. */
  getAd(request: AdRequest): Promise<ServerAd | null>;
}

export function createServerClient(options: ServerClientOptions): ServerClient {
  const base = options.baseUrl.replace(/\/+$/, '');
  const send = options.fetch ?? ((input, init) => fetch(input, init));
  const told = (why: NoAd) => {
    try {
      options.onNoAd?.(why);
    } catch {
      // A logger that throws must not turn a missing ad into a failed answer.
    }
    return null;
  };
  return {
    async getAd(request) {
      const timeoutMs = request.timeoutMs ?? options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
      const controller = new AbortController();
      let timedOut = false;
      let timer: ReturnType<typeof setTimeout> | undefined;
      // The timeout answers on its own, even if a fetch ignores the abort signal; once it has,
      // the request's own outcome is told to no one (one answer, one reason).
      const deadline = new Promise<null>((resolve) => {
        timer = setTimeout(() => {
          timedOut = true;
          controller.abort();
          resolve(told({ reason: 'timeout' }));
        }, timeoutMs);
      });
      const no = (why: NoAd) => (timedOut ? null : told(why));
      const asked = (async (): Promise<ServerAd | null> => {
        try {
          const messages = latestMessages(request.messages ?? []);
          const res = await send(`${base}/functions/v1/ads`, {
            method: 'POST',
            headers: { authorization: `Bearer ${options.key}`, 'content-type': 'application/json' },
            body: JSON.stringify({
              placement_id: request.placementId,
              ...(request.keywords?.length ? { keywords: request.keywords } : {}),
              ...(messages.length ? { context: { messages } } : {}),
              client: { ip: request.client.ip, user_agent: request.client.userAgent },
            }),
            signal: controller.signal,
          });
          if (timedOut) return null;
          if (res.status === 204) return no({ reason: 'no_fill', noFillReason: res.headers.get('no-fill-reason') });
          if (res.status !== 200) {
            const code = await res
              .json()
              .then((b: { error?: { code?: unknown } }) => (typeof b?.error?.code === 'string' ? b.error.code : null))
              .catch(() => null);
            return no({ reason: 'refused', status: res.status, code });
          }
          const text = await res.text();
          let body: unknown;
          try {
            body = JSON.parse(text);
          } catch {
            return no({ reason: 'invalid_answer' });
          }
          return isAd(body) ? body : no({ reason: 'invalid_answer' });
        } catch {
          return no({ reason: 'unreachable' });
        }
      })();
      try {
        return await Promise.race([asked, deadline]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/** Just enough of the answer's shape to render and count it. */
function isAd(body: unknown): body is ServerAd {
  const b = body as Partial<ServerAd> | null;
  return (
    typeof b === 'object' &&
    b !== null &&
    typeof b.decision_id === 'string' &&
    typeof b.token === 'string' &&
    typeof b.click_url === 'string' &&
    typeof b.ad?.headline === 'string' &&
    typeof b.ad?.advertiser === 'string'
  );
}

// ── The ad in the answer's stream ────────────────────────────────────────────────────────────

/** Where the ad's data sits in the markdown: an HTML comment, which markdown renderers do not show. */
export const AD_DATA_PREFIX = '<!-- monetize-ad ';

/** Markdown's own characters in a text that goes into a link's label, made literal. */
function literal(text: string): string {
  return text.replace(/[\\`*_[\]()<>#!|~]/g, (c) => `\\${c}`).replace(/\s+/g, ' ');
}

/**
 * The ad as the last chunk of an answer in markdown: a rule, the **Sponsored** label, the
 * advertiser, and the headline linked to the ad's click URL (a click counts wherever the text is
 * shown), then its data in a comment the browser SDK reads back (`findAd`) to render it in its
 * format and send its impression once it has been viewable.
 */
export function adMarkdown(ad: ServerAd): string {
  const data = base64url(JSON.stringify(ad));
  const body = ad.ad.body ? ` ${literal(ad.ad.body)}` : '';
  return `\n\n---\n\n**Sponsored** · ${literal(ad.ad.advertiser)}: [${literal(ad.ad.headline)}](${ad.click_url})${body}\n\n${AD_DATA_PREFIX}${data} -->\n`;
}

function base64url(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** A stream of text as AI SDKs give it: a web `ReadableStream` of strings, or any async iterable of strings. */
export type TextStream = ReadableStream<string> | AsyncIterable<string>;

/**
 * The answer's chunks as they come, then the ad's (`adMarkdown`) once `ad` settles: the ad
 * request started beside the model call has usually answered by the time the answer ends, and
 * `getAd`'s timeout bounds the wait when it has not. `null` (no ad) adds nothing. Answers a
 * `ReadableStream` for a `ReadableStream`, an async iterable for an async iterable.
 */
export function appendAd(stream: ReadableStream<string>, ad: Promise<ServerAd | null> | ServerAd | null): ReadableStream<string>;
export function appendAd(stream: AsyncIterable<string>, ad: Promise<ServerAd | null> | ServerAd | null): AsyncIterable<string>;
export function appendAd(stream: TextStream, ad: Promise<ServerAd | null> | ServerAd | null): TextStream {
  const chunks = withAd(stream, ad);
  if (!isReadableStream(stream)) return chunks;
  const iterator = chunks[Symbol.asyncIterator]();
  return new ReadableStream<string>({
    async pull(controller) {
      const next = await iterator.next();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    async cancel(reason) {
      await iterator.return?.(reason);
    },
  });
}

async function* withAd(stream: TextStream, ad: Promise<ServerAd | null> | ServerAd | null): AsyncGenerator<string> {
  // A rejection must not surface at the end of someone's answer, nor go unhandled before it.
  const settled = Promise.resolve(ad).catch(() => null);
  for await (const chunk of iterate(stream)) yield chunk;
  const arrived = await settled;
  if (arrived) yield adMarkdown(arrived);
}

async function* iterate(stream: TextStream): AsyncGenerator<string> {
  if (!isReadableStream(stream)) {
    yield* stream;
    return;
  }
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}

function isReadableStream(stream: TextStream): stream is ReadableStream<string> {
  return typeof (stream as ReadableStream<string>).getReader === 'function';
}
