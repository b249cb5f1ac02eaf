// @vitest-environment happy-dom
import { createHash } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { cleanKeywords, CONTEXT_LIMITS, createClient, isAd, trimContext, VERSION, type MonetizeClient } from '../src/client';
import type { Ad, Format, MonetizeEvent, ViewabilityRule } from '../src/types';
import { findAd } from '../src/server-ad';
import { adMarkdown } from '../../server/src/index';

/*
 * The SDK's DOM-facing parts, in happy-dom: no network (fetch is a stub answering per path), no
 * real IntersectionObserver (a fake the tests drive), and a fake clock (timers, Date and
 * performance.now) so the one-second rules run deterministically.
 */

const BASE = 'https://api.example.test';
const KEY = 'pk_test_client_spec';
const MARKUP = '<img src=x onerror=alert(1)>';

// ---------------------------------------------------------------- IntersectionObserver

interface FakeEntry {
  isIntersecting: boolean;
  intersectionRatio: number;
  boundingClientRect: { width: number; height: number };
  intersectionRect: { width: number; height: number };
}

class FakeIntersectionObserver {
  static instances: FakeIntersectionObserver[] = [];
  readonly observed = new Set<Element>();
  disconnected = false;

  constructor(
    private readonly callback: (entries: FakeEntry[], observer: FakeIntersectionObserver) => void,
    readonly options?: IntersectionObserverInit,
  ) {
    FakeIntersectionObserver.instances.push(this);
  }

  observe(element: Element): void {
    this.observed.add(element);
  }

  unobserve(element: Element): void {
    this.observed.delete(element);
  }

  disconnect(): void {
    this.observed.clear();
    this.disconnected = true;
  }

  takeRecords(): FakeEntry[] {
    return [];
  }

  deliver(entry: FakeEntry): void {
    this.callback([{ ...entry }], this);
  }

  /** The observers currently watching `element`. */
  static watching(element: Element): FakeIntersectionObserver[] {
    return FakeIntersectionObserver.instances.filter((o) => o.observed.has(element));
  }
}

/** Tells every observer of `element` that `ratio` of it is in view (its bottom cut off); answers how many were told. */
function see(element: Element, ratio: number, width = 300, height = 120): number {
  return seeRect(element, { width, height }, { width, height: height * ratio });
}

/**
 * Tells every observer of `element` that of its box, `seen` is in view, with the ratio a browser
 * computes (the areas'); answers how many were told.
 */
function seeRect(element: Element, box: { width: number; height: number }, seen: { width: number; height: number }): number {
  const observers = FakeIntersectionObserver.watching(element);
  const intersectionRatio = (seen.width * seen.height) / (box.width * box.height);
  for (const o of observers) o.deliver({ isIntersecting: intersectionRatio > 0, intersectionRatio, boundingClientRect: box, intersectionRect: seen });
  return observers.length;
}

// ---------------------------------------------------------------- fetch

type Handler = (url: URL, init: RequestInit) => Response | Promise<Response>;
let routes: Map<string, Handler>;

const fetchMock = vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> => {
  const url = new URL(String(input));
  const handler = routes.get(url.pathname);
  if (!handler) throw new Error(`no route for ${url.pathname}`);
  return handler(url, init);
});

function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

/** The requests made to `path`, in order. */
function requests(path: string): { url: URL; init: RequestInit }[] {
  return fetchMock.mock.calls.map(([input, init]) => ({ url: new URL(String(input)), init: init ?? {} })).filter((r) => r.url.pathname === path);
}

function header(init: RequestInit, name: string): string | null {
  return new Headers(init.headers).get(name);
}

interface SentEvent {
  id: string;
  type: string;
  token: string;
  viewability: { visible_share: number; visible_seconds: number; area_px: number };
}

/** The bodies of the event posts made by fetch, in order. */
function eventPosts(): SentEvent[][] {
  return requests('/functions/v1/events').map((r) => (JSON.parse(String(r.init.body)) as { events: SentEvent[] }).events);
}

/** The ids of every event posted by fetch, in order. */
function postedIds(): string[] {
  return eventPosts()
    .flat()
    .map((e) => e.id);
}

/** A fetch answer that never comes, unless the request is aborted (as a real fetch rejects then). */
function pendingUntilAborted(init: RequestInit): Promise<Response> {
  return new Promise((_resolve, reject) => {
    init.signal?.addEventListener('abort', () => reject(new DOMException('The operation was aborted.', 'AbortError')));
  });
}

// ---------------------------------------------------------------- ads

let decisions = 0;
const TEXT_RULE: ViewabilityRule = { min_visible_share: 0.5, min_seconds: 1, large_ad: { min_visible_share: 0.3, min_seconds: 1, min_area_px: 242_500 } };
const VIDEO_RULE: ViewabilityRule = { min_visible_share: 0.5, min_seconds: 2 };

function makeAd(format: Format, content: Partial<Ad['ad']> = {}, rule: ViewabilityRule = format === 'floating_video' ? VIDEO_RULE : TEXT_RULE): Ad {
  decisions += 1;
  const id = `dec_${decisions}_${format}`;
  return {
    decision_id: id,
    placement_id: 'pl_spec',
    format,
    ad: {
      id: `ad_${decisions}`,
      advertiser: 'Acme Tools',
      headline: 'Builds twice as fast',
      body: 'Cache every step of your pipeline.',
      cta: 'Try it free',
      image_url: null,
      video_url: null,
      label: 'Sponsored',
      ...content,
    },
    click_url: `${BASE}/functions/v1/click?decision=${id}`,
    token: `tok_${id}`,
    expires_at: '2099-01-01T00:00:00Z',
    viewability: rule,
  };
}

/** An answer of `ad` with the service's `Date` header (at `serverMs`), as a real server sends it. */
function withDate(ad: Ad, serverMs: number): Response {
  return new Response(JSON.stringify(ad), { status: 200, headers: { 'content-type': 'application/json', date: new Date(serverMs).toUTCString() } });
}

/** The ads endpoint answers `ad` (200), whatever is asked. */
function serveAd(ad: Ad): void {
  routes.set('/functions/v1/ads', () => json(ad));
}

// ---------------------------------------------------------------- page and clock

let events: MonetizeEvent[];
let unhandled: unknown[];
const onUnhandled = (reason: unknown): void => {
  unhandled.push(reason);
};

function client(options: { timeoutMs?: number } = {}): MonetizeClient {
  const c = createClient({ key: KEY, baseUrl: BASE, sessionId: 'sess_spec', ...options });
  c.on((e) => events.push(e));
  return c;
}

function eventsOf(type: MonetizeEvent['type']): MonetizeEvent[] {
  return events.filter((e) => e.type === type);
}

function slot(): HTMLElement {
  const div = document.createElement('div');
  document.body.append(div);
  return div;
}

/** Lets pending promises (fetch answers, their bodies) settle without moving the fake clock. */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) {
    await vi.advanceTimersByTimeAsync(0);
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/** Renders an ad answered by the stub (`answer`, plain JSON by default) and waits until it is drawn; answers its root element. */
async function renderAd(
  c: MonetizeClient,
  ad: Ad,
  target = slot(),
  answer?: () => Response,
): Promise<{ root: HTMLElement; target: HTMLElement; destroy: () => void }> {
  if (answer) routes.set('/functions/v1/ads', answer);
  else serveAd(ad);
  const placement = c.render(target, ad.placement_id, { format: ad.format });
  await settle();
  const root = target.querySelector<HTMLElement>('.mz-ad');
  if (!root) throw new Error('the ad was not drawn');
  expect(placement.ad).toEqual(ad);
  return { root, target, destroy: () => placement.destroy() };
}

let visibility: DocumentVisibilityState;
let focused: boolean;
/** What the SDK told the console (silenced): the refusals it explains (src/explain.ts), and its warnings. */
let consoleError: MockInstance<Console['error']>;
let consoleWarn: MockInstance<Console['warn']>;
/** The causes the console was told of on this page (a page load is a test). */
const explained = (globalThis as unknown as Record<symbol, Set<string> | undefined>)[Symbol.for('monetize.explained')];

beforeAll(() => {
  process.on('unhandledRejection', onUnhandled);
});

afterAll(() => {
  process.off('unhandledRejection', onUnhandled);
});

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'performance'] });
  routes = new Map();
  routes.set('/functions/v1/events', () => json({ accepted: 1 }, 202));
  fetchMock.mockClear();
  vi.stubGlobal('fetch', fetchMock);
  FakeIntersectionObserver.instances = [];
  vi.stubGlobal('IntersectionObserver', FakeIntersectionObserver);
  visibility = 'visible';
  focused = true;
  vi.spyOn(document, 'visibilityState', 'get').mockImplementation(() => visibility);
  vi.spyOn(document, 'hasFocus').mockImplementation(() => focused);
  events = [];
  unhandled = [];
  explained?.clear();
  consoleError = vi.spyOn(console, 'error').mockImplementation(() => {});
  consoleWarn = vi.spyOn(console, 'warn').mockImplementation(() => {});
});

afterEach(() => {
  vi.clearAllTimers();
  vi.useRealTimers();
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
  document.body.replaceChildren();
});

// ---------------------------------------------------------------- rendering

describe('render: the five formats', () => {
  const formats: Format[] = ['inline_text', 'tooltip', 'sponsored_card', 'floating_video', 'sponsored_follow_up'];

  for (const format of formats) {
    it(`draws a ${format} with "Sponsored" before its other text and one sponsored, noopener link to its click URL in a new tab`, async () => {
      const c = client();
      const ad = makeAd(format, {
        image_url: format === 'sponsored_card' || format === 'floating_video' ? `${BASE}/img.png` : null,
        video_url: format === 'floating_video' ? `${BASE}/clip.mp4` : null,
      });
      const { root, target } = await renderAd(c, ad);

      const text = (target.textContent ?? '').trim();
      expect(text.startsWith('Sponsored')).toBe(true);
      expect(text.indexOf(ad.ad.headline)).toBeGreaterThan(text.indexOf('Sponsored'));
      // "Sponsored" is an element's own text, not just a word inside the headline.
      const label = [...target.querySelectorAll('*')].find((e) => e.children.length === 0 && (e.textContent ?? '').trim().startsWith('Sponsored'));
      expect(label).toBeDefined();

      const links = target.querySelectorAll('a');
      expect(links).toHaveLength(1);
      const a = links[0]!;
      expect(a.getAttribute('href')).toBe(ad.click_url);
      expect(a.target).toBe('_blank');
      const rel = a.rel.split(/\s+/);
      expect(rel).toContain('sponsored');
      expect(rel).toContain('noopener');

      if (format === 'sponsored_card' || format === 'floating_video') {
        expect(root.getAttribute('aria-label') ?? '').toContain(ad.ad.advertiser);
      }

      const close = target.querySelector('button[aria-label="Close ad"]');
      if (format !== 'floating_video') {
        expect(close).toBeNull();
        return;
      }
      expect(close).not.toBeNull();
      expect(root.isConnected).toBe(true);
      (close as HTMLButtonElement).click();
      expect(root.isConnected).toBe(false);
      expect(target.querySelector('.mz-ad')).toBeNull();
      // Closed, it is no longer watched: no impression whatever the page does afterwards.
      expect(FakeIntersectionObserver.instances.every((o) => o.disconnected)).toBe(true);
      await vi.advanceTimersByTimeAsync(10_000);
      expect(eventPosts()).toHaveLength(0);
    });
  }

  it('shows markup in the headline, body and advertiser as text, creating no element from it', async () => {
    const c = client();
    for (const format of formats) {
      const ad = makeAd(format, { headline: MARKUP, body: MARKUP, advertiser: MARKUP, cta: MARKUP });
      const { root, target } = await renderAd(c, ad);
      expect(target.querySelectorAll('img')).toHaveLength(0);
      expect(document.querySelectorAll('img')).toHaveLength(0);
      expect(target.textContent).toContain(MARKUP);
      if (format === 'sponsored_card' || format === 'floating_video') expect(root.getAttribute('aria-label')).toContain(MARKUP);
    }
  });

  it('reserves the room of the format in the slot synchronously, before the answer (none for floating_video)', () => {
    routes.set('/functions/v1/ads', (_url, init) => pendingUntilAborted(init));
    const c = client();
    for (const format of ['inline_text', 'tooltip', 'sponsored_card', 'sponsored_follow_up'] as const) {
      const target = slot();
      c.render(target, 'pl_room', { format });
      expect(target.classList.contains(`mz-slot-${format}`)).toBe(true);
      expect(target.childNodes).toHaveLength(0);
    }
    const floating = slot();
    c.render(floating, 'pl_room', { format: 'floating_video' });
    expect([...floating.classList].filter((name) => name.startsWith('mz-slot-'))).toEqual([]);
    // Nothing had answered yet: the classes came before the ad.
    expect(eventsOf('filled')).toHaveLength(0);
  });

  it('names the tooltip "Sponsored: <advertiser>" for screen readers', async () => {
    const c = client();
    const ad = makeAd('tooltip', { advertiser: 'Globex' });
    const { root } = await renderAd(c, ad);
    expect(root.getAttribute('aria-label')).toBe('Sponsored: Globex');
  });
});

// ---------------------------------------------------------------- the stylesheet

describe('the stylesheet', () => {
  function stylesheets(): HTMLStyleElement[] {
    return [...document.querySelectorAll<HTMLStyleElement>('style[data-monetize]')];
  }

  /** Takes the stylesheet out of the page, as earlier tests (or a host) may have left it there. */
  function removeStylesheets(): void {
    for (const style of stylesheets()) style.remove();
  }

  it('is in the page as soon as render() reserves a format, before any answer, and with only no-fills and fallbacks', async () => {
    removeStylesheets();
    routes.set('/functions/v1/ads', (_url, init) => pendingUntilAborted(init));
    const c = client();
    c.render(slot(), 'pl_styled', { format: 'sponsored_card' });
    expect(stylesheets()).toHaveLength(1);
    expect(stylesheets()[0]!.textContent).toContain('.mz-slot-sponsored_card');
    expect(eventsOf('filled')).toHaveLength(0);

    removeStylesheets();
    routes.set('/functions/v1/ads', () => new Response(null, { status: 204 }));
    const target = slot();
    c.render(target, 'pl_empty', { format: 'tooltip', fallback: 'house ad' });
    await settle();
    expect(target.textContent).toBe('house ad');
    expect(target.classList.contains('mz-slot-tooltip')).toBe(true);
    expect(eventsOf('no-fill')).toHaveLength(1);
    expect(eventsOf('filled')).toHaveLength(0);
    expect(stylesheets()).toHaveLength(1);
    expect(stylesheets()[0]!.textContent).toContain('.mz-slot-sponsored_card');
  });

  it('comes back with the next render when the host removed it, and is never there twice', async () => {
    removeStylesheets();
    const c = client();

    await renderAd(c, makeAd('sponsored_card'));
    expect(stylesheets()).toHaveLength(1);

    removeStylesheets();
    expect(stylesheets()).toHaveLength(0);
    await renderAd(c, makeAd('tooltip'));
    expect(stylesheets()).toHaveLength(1);

    await renderAd(c, makeAd('inline_text'));
    await renderAd(c, makeAd('sponsored_card'));
    c.render(slot(), 'pl_more', { format: 'tooltip' });
    await settle();
    expect(stylesheets()).toHaveLength(1);
    expect(stylesheets()[0]!.textContent).toContain('.mz-slot-sponsored_card');
  });

  // happy-dom lays nothing out: the rules themselves are checked (e2e/demo-layout.spec.ts measures them in a browser).
  it('fits the card in its room: the image whole at its own aspect ratio, one line each for the label, headline and call to action', async () => {
    const { target } = await renderAd(client(), makeAd('sponsored_card', { image_url: `${BASE}/img.png` }));
    const img = target.querySelector('img')!;
    expect(img.getAttribute('width')).toBe('96');
    expect(img.hasAttribute('height')).toBe(false);

    const css = stylesheets()[0]!.textContent ?? '';
    // The declarations of every rule whose selector list names `selector`.
    const rule = (selector: string) =>
      [...css.matchAll(/([^{}]+)\{([^}]*)\}/g)]
        .filter(([, selectors]) => selectors!.split(',').some((s) => s.trim() === selector))
        .map(([, , declarations]) => declarations)
        .join(';');
    expect(rule('.mz-card')).toContain('height:120px');
    const image = rule('.mz-card img');
    expect(image).toContain('width:96px');
    expect(image).toContain('height:auto');
    expect(image).toContain('max-height:100%');
    expect(image).not.toMatch(/object-fit:cover|height:96px/);
    for (const part of ['.mz-card .mz-label', '.mz-card .mz-title', '.mz-card .mz-cta']) {
      expect(rule(part), part).toContain('white-space:nowrap');
      expect(rule(part), part).toContain('text-overflow:ellipsis');
    }
  });
});

// ---------------------------------------------------------------- the sponsored follow-up

describe('the sponsored follow-up', () => {
  const QUESTION = 'How do I turn meeting notes into tasks?';

  function followUp(action?: 'ask' | 'visit', content: Partial<Ad['ad']> = {}): Ad {
    return makeAd('sponsored_follow_up', {
      headline: QUESTION,
      body: '',
      cta: action ?? 'visit',
      advertiser: 'Arlo',
      ...(action ? { action } : {}),
      ...content,
    });
  }

  /** Renders `ad` with `options` (onAsk) and waits until it is drawn; answers its root and link. */
  async function renderFollowUp(c: MonetizeClient, ad: Ad, options: { onAsk?: (question: string) => void } = {}) {
    serveAd(ad);
    const target = slot();
    c.render(target, ad.placement_id, { format: ad.format, ...options });
    await settle();
    const root = target.querySelector<HTMLElement>('.mz-ad')!;
    return { root, target, link: root.querySelector('a')! };
  }

  /** Clicks `link` as a user does, and answers whether the SDK kept the browser from opening it (the page then stops it too). */
  function click(link: HTMLAnchorElement): boolean {
    let prevented: boolean | undefined;
    const after = (event: Event): void => {
      prevented = event.defaultPrevented;
      // The test page opens nothing.
      event.preventDefault();
    };
    document.addEventListener('click', after);
    link.dispatchEvent(new MouseEvent('click', { bubbles: true, cancelable: true }));
    document.removeEventListener('click', after);
    if (prevented === undefined) throw new Error('the click did not reach the page');
    return prevented;
  }

  it('is one row: "Sponsored" first, the question as the link, the advertiser after it, and "Why this ad?" outside the link', async () => {
    const ad = followUp('ask');
    const { root, target, link } = await renderFollowUp(client(), ad, { onAsk: () => {} });
    expect(root.classList.contains('mz-follow')).toBe(true);
    expect([...root.children].map((child) => child.className || child.tagName)).toEqual(['mz-label', 'A', 'mz-by', 'mz-why']);
    expect(root.children[0]!.textContent).toBe('Sponsored');
    expect(root.querySelectorAll('a')).toHaveLength(1);
    expect(link.textContent).toBe(QUESTION);
    expect(link.getAttribute('href')).toBe(ad.click_url);
    expect(link.target).toBe('_blank');
    expect(link.rel.split(/\s+/)).toEqual(expect.arrayContaining(['sponsored', 'noopener']));
    expect(root.children[2]!.textContent).toBe(' · Arlo');
    const why = root.querySelector<HTMLButtonElement>('button.mz-why')!;
    expect(why.getAttribute('aria-label')).toBe('Why this ad?');
    expect(why.closest('a')).toBeNull();
    expect(target.textContent).toBe(`Sponsored${QUESTION} · Arloi`);
    expect(target.classList.contains('mz-slot-sponsored_follow_up')).toBe(true);
  });

  it('puts the question and the advertiser in as text, never markup', async () => {
    const { root, link } = await renderFollowUp(client(), followUp('ask', { headline: MARKUP, advertiser: MARKUP }), { onAsk: () => {} });
    expect(link.textContent).toBe(MARKUP);
    expect(root.textContent).toContain(` · ${MARKUP}`);
    expect(document.querySelectorAll('img')).toHaveLength(0);
  });

  it('wraps its question to a second line on a narrow screen rather than cut it, never wider than its slot, and keeps a row of room that grows', async () => {
    await renderFollowUp(client(), followUp());
    const css = document.querySelector('style[data-monetize]')!.textContent ?? '';
    // The declarations of every rule whose selector list names `selector`.
    const rule = (selector: string) =>
      [...css.matchAll(/([^{}]+)\{([^}]*)\}/g)]
        .filter(([, selectors]) => selectors!.split(',').some((s) => s.trim() === selector))
        .map(([, , declarations]) => declarations)
        .join(';');
    expect(rule('.mz-follow')).toContain('flex-wrap:wrap');
    // A long word breaks too: nothing is ever wider than the row.
    expect(rule('.mz-follow')).toContain('overflow-wrap:anywhere');
    for (const part of ['.mz-follow', '.mz-follow a', '.mz-follow .mz-by', '.mz-follow .mz-label']) {
      expect(rule(part), part).not.toMatch(/nowrap|ellipsis|line-clamp|overflow:hidden/);
    }
    expect(rule('.mz-follow a')).toMatch(/border-radius/);
    const room = rule('.mz-slot-sponsored_follow_up');
    expect(room).toContain('min-height:');
    expect(room).not.toMatch(/(^|;)height:|overflow:hidden/);
  });

  it("asked: a click calls onAsk with the question, opens nothing, and sends one click event with the decision's id and token, after the impression that waited", async () => {
    const c = client();
    const ad = followUp('ask');
    const onAsk = vi.fn();
    const { root, link } = await renderFollowUp(c, ad, { onAsk });
    see(root, 1, 358, 44);
    await vi.advanceTimersByTimeAsync(1100);
    expect(eventsOf('viewable')).toHaveLength(1);
    expect(eventPosts()).toHaveLength(0); // the impression waits for its batch

    expect(click(link)).toBe(true);
    expect(onAsk.mock.calls).toEqual([[QUESTION]]);
    expect(eventsOf('clicked').map((e) => e.ad)).toEqual([ad]);
    await settle();
    // Sent at once, in one post, the impression first.
    expect(eventPosts()).toHaveLength(1);
    expect(eventPosts()[0]!.map((e) => e.id)).toEqual([`${ad.decision_id}.impression`, `${ad.decision_id}.click`]);
    expect(eventPosts()[0]![1]).toEqual({ id: `${ad.decision_id}.click`, type: 'click', token: ad.token });

    // Asked again: the page hears it, the service is not told twice.
    expect(click(link)).toBe(true);
    expect(onAsk).toHaveBeenCalledTimes(2);
    expect(eventsOf('clicked')).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(postedIds()).toEqual([`${ad.decision_id}.impression`, `${ad.decision_id}.click`]);
    expect(eventsOf('error')).toEqual([]);
  });

  it('asked before the whole question was in view for a second: the click is not sent (the service would refuse it), and a later one is', async () => {
    const c = client();
    const ad = followUp('ask');
    const onAsk = vi.fn();
    const { root, link } = await renderFollowUp(c, ad, { onAsk });
    see(root, 1, 358, 44);
    await vi.advanceTimersByTimeAsync(500);
    click(link);
    expect(onAsk).toHaveBeenCalledTimes(1);
    await settle();
    expect(postedIds()).toEqual([]);
    await vi.advanceTimersByTimeAsync(600);
    click(link);
    await settle();
    expect(postedIds()).toEqual([`${ad.decision_id}.impression`, `${ad.decision_id}.click`]);
  });

  it('asked after the impression was sent: the click goes alone, at once', async () => {
    const c = client();
    const ad = followUp('ask');
    const { root, link } = await renderFollowUp(c, ad, { onAsk: () => {} });
    see(root, 1, 358, 44);
    await vi.advanceTimersByTimeAsync(2100);
    expect(postedIds()).toEqual([`${ad.decision_id}.impression`]);
    click(link);
    await settle();
    expect(eventPosts()).toEqual([[expect.objectContaining({ type: 'impression' })], [{ id: `${ad.decision_id}.click`, type: 'click', token: ad.token }]]);
  });

  it('asked, when onAsk throws: an error event, nothing thrown into the page, and the click still counted', async () => {
    const c = client();
    const ad = followUp('ask');
    const failure = new Error('the chat is closed');
    const { root, link } = await renderFollowUp(c, ad, {
      onAsk: () => {
        throw failure;
      },
    });
    see(root, 1, 358, 44);
    await vi.advanceTimersByTimeAsync(1100);
    expect(() => click(link)).not.toThrow();
    expect(eventsOf('error').map((e) => e.error)).toEqual([failure]);
    expect(eventsOf('error')[0]!.ad).toEqual(ad);
    await settle();
    expect(postedIds()).toEqual([`${ad.decision_id}.impression`, `${ad.decision_id}.click`]);
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(unhandled).toEqual([]);
  });

  for (const [name, action, withOnAsk] of [
    ['to visit, with onAsk', 'visit', true],
    ['to ask, without onAsk', 'ask', false],
    ['with no action, with onAsk', undefined, true],
  ] as const) {
    it(`${name}: a click opens the click URL (its default is not prevented), and the SDK sends no click event`, async () => {
      const c = client();
      const ad = followUp(action);
      const onAsk = vi.fn();
      const { root, link } = await renderFollowUp(c, ad, withOnAsk ? { onAsk } : {});
      see(root, 1, 358, 44);
      await vi.advanceTimersByTimeAsync(1100);
      expect(click(link)).toBe(false);
      expect(onAsk).not.toHaveBeenCalled();
      expect(eventsOf('clicked').map((e) => e.ad)).toEqual([ad]);
      await vi.advanceTimersByTimeAsync(10_000);
      // The impression only: the service counts the click on its redirect.
      expect(postedIds()).toEqual([`${ad.decision_id}.impression`]);
    });
  }

  it('is an ad: a server-fetched follow-up is shown, with onAsk, as render shows it', async () => {
    expect(isAd(followUp('ask'))).toBe(true);
    expect(isAd({ ...followUp('ask'), format: 'sponsored_banner' })).toBe(false);
    const c = client();
    const ad = followUp('ask');
    const found = findAd(`An answer.${adMarkdown(ad)}`);
    expect(found.ad).toEqual(ad);
    const onAsk = vi.fn();
    const target = slot();
    c.show(target, found.ad, { onAsk });
    await settle();
    expect(eventsOf('filled')).toHaveLength(1);
    expect(eventsOf('error')).toEqual([]);
    expect(target.classList.contains('mz-slot-sponsored_follow_up')).toBe(true);
    see(target.querySelector<HTMLElement>('.mz-follow')!, 1, 358, 44);
    await vi.advanceTimersByTimeAsync(1100);
    expect(click(target.querySelector('a')!)).toBe(true);
    expect(onAsk).toHaveBeenCalledWith(QUESTION);
    await settle();
    expect(postedIds()).toEqual([`${ad.decision_id}.impression`, `${ad.decision_id}.click`]);
  });
});

describe('the sponsored follow-up in React', () => {
  it('MonetizeAd keeps a row of room from the first render, passes onAsk, and calls the latest one given without asking for a new ad', async () => {
    const { act, createElement } = await import('react');
    const { createRoot } = await import('react-dom/client');
    const { MonetizeAd, MonetizeServerAd } = await import('../src/react');
    (globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;
    const c = client();
    const ad = makeAd('sponsored_follow_up', { headline: 'Which notes app syncs offline?', action: 'ask' });
    serveAd(ad);
    const container = slot();
    const root = createRoot(container);
    const first = vi.fn();
    const second = vi.fn();
    const props = { client: c, placementId: ad.placement_id, format: 'sponsored_follow_up' as const };
    try {
      await act(async () => root.render(createElement(MonetizeAd, { ...props, onAsk: first })));
      const div = container.firstElementChild as HTMLElement;
      expect(div.style.minHeight).toBe('2em');
      expect(div.style.height).toBe('');
      await act(async () => settle());
      await act(async () => root.render(createElement(MonetizeAd, { ...props, onAsk: second })));
      expect(requests('/functions/v1/ads')).toHaveLength(1);
      const link = container.querySelector('a')!;
      const event = new MouseEvent('click', { bubbles: true, cancelable: true });
      link.dispatchEvent(event);
      expect(event.defaultPrevented).toBe(true);
      expect(first).not.toHaveBeenCalled();
      expect(second).toHaveBeenCalledWith('Which notes app syncs offline?');

      // An ad the server fetched, the same way.
      const shown = makeAd('sponsored_follow_up', { headline: 'And on the phone?', action: 'ask' });
      const onAsk = vi.fn();
      await act(async () => root.render(createElement(MonetizeServerAd, { client: c, ad: shown, onAsk })));
      await act(async () => settle());
      container.querySelector('a')!.dispatchEvent(new MouseEvent('click', { bubbles: true, cancelable: true }));
      expect(onAsk).toHaveBeenCalledWith('And on the phone?');
    } finally {
      await act(async () => root.unmount());
      delete (globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT;
    }
  });
});

// ---------------------------------------------------------------- the ad request

describe('the ad request', () => {
  it('GETs {baseUrl}/functions/v1/ads with placement_id, session_id, comma-joined keywords (10 at most) and the x-api-key header', async () => {
    const c = client();
    const ad = makeAd('sponsored_card');
    serveAd(ad);

    await expect(c.getAd('pl_kw', { keywords: ['rust', 'wasm', 'build cache'] })).resolves.toEqual(ad);
    await c.getAd('pl_plain');
    await c.getAd('pl_many', { keywords: Array.from({ length: 12 }, (_, i) => `w${i}`) });

    const [withKeywords, plain, many] = requests('/functions/v1/ads');
    expect(`${withKeywords!.url.origin}${withKeywords!.url.pathname}`).toBe(`${BASE}/functions/v1/ads`);
    expect(withKeywords!.init.method ?? 'GET').toBe('GET');
    expect(header(withKeywords!.init, 'x-api-key')).toBe(KEY);
    expect(Object.fromEntries(withKeywords!.url.searchParams)).toEqual({ placement_id: 'pl_kw', session_id: 'sess_spec', keywords: 'rust,wasm,build cache' });
    expect(Object.fromEntries(plain!.url.searchParams)).toEqual({ placement_id: 'pl_plain', session_id: 'sess_spec' });
    expect(many!.url.searchParams.get('keywords')).toBe('w0,w1,w2,w3,w4,w5,w6,w7,w8,w9');
    expect(eventsOf('filled').map((e) => e.placementId)).toEqual(['pl_kw', 'pl_plain', 'pl_many']);
  });

  it('cleans keywords as the service takes them, sends them so, and leaves the parameter out when none is left', async () => {
    const SERVICE_KEYWORDS = /^[a-z0-9 -]+(,[a-z0-9 -]+)*$/;
    expect(cleanKeywords(['AI', 'C++', 'café', 'AI', ''])).toBe('ai,c,caf');
    expect(cleanKeywords(['  Build \t CACHE  ', 'rust/wasm', 'a,b', 'Rust-Lang'])).toBe('build cache,rust wasm,a b,rust-lang');
    expect(cleanKeywords(['Rust', 'rust!', ' RUST ', '', '   ', '!!!'])).toBe('rust');
    expect(cleanKeywords(['', ' ', '¿¡', '日本語'])).toBe('');
    expect(cleanKeywords(Array.from({ length: 15 }, (_, i) => `Word${i}`))).toBe('word0,word1,word2,word3,word4,word5,word6,word7,word8,word9');
    // 40 characters a word, 200 in all, commas included; words are not cut further.
    const long = ['a', 'b', 'c', 'd', 'e'].map((letter) => letter.repeat(60));
    const capped = cleanKeywords(long);
    expect(capped.length).toBeLessThanOrEqual(200);
    expect(capped).toBe(['a', 'b', 'c', 'd'].map((letter) => letter.repeat(40)).join(','));

    const awkward: string[][] = [
      ['ÀÉÎÕÜ', 'naïve café', '🚀 rocket 🚀', 'tab\there', 'new\nline', ',,,', ' , '],
      ['--', ' - ', 'a - b', '0', 'x'.repeat(250), 'C#', 'F#', '.NET', 'node.js'],
      Array.from({ length: 40 }, (_, i) => `Keyword number ${i} — with «quotes»`),
      [String(null), String(undefined), '\u0000\u200b', 'Ünïcödé', 'ǅ', 'ß'],
    ];
    for (const words of awkward) {
      const clean = cleanKeywords(words);
      expect(clean.length).toBeLessThanOrEqual(200);
      expect(clean.split(',').length).toBeLessThanOrEqual(10);
      expect(clean).toMatch(SERVICE_KEYWORDS);
    }

    const c = client();
    serveAd(makeAd('sponsored_card'));
    await c.getAd('pl_kw', { keywords: ['AI', 'C++', 'café', 'AI', ''] });
    await c.getAd('pl_none', { keywords: ['', '   ', '!!!', '日本語'] });
    c.render(slot(), 'pl_render', { format: 'sponsored_card', keywords: ['Rust!', 'WASM', 'rust'] });
    c.render(slot(), 'pl_render_none', { format: 'sponsored_card', keywords: ['???'] });
    await settle();

    const [kw, none, rendered, renderedNone] = requests('/functions/v1/ads');
    expect(kw!.url.searchParams.get('keywords')).toBe('ai,c,caf');
    expect(none!.url.searchParams.has('keywords')).toBe(false);
    expect(Object.fromEntries(none!.url.searchParams)).toEqual({ placement_id: 'pl_none', session_id: 'sess_spec' });
    expect(rendered!.url.searchParams.get('keywords')).toBe('rust,wasm');
    expect(renderedNone!.url.searchParams.has('keywords')).toBe(false);
  });

  it('replaces a sessionId the service would refuse with a random valid one (warning once), and keeps and sends a valid one', async () => {
    const VALID = /^[A-Za-z0-9_.:-]{8,64}$/;
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    serveAd(makeAd('tooltip'));

    for (const refused of ['user@example.com', 'short', 'x'.repeat(65), 'has space here', '']) {
      warn.mockClear();
      fetchMock.mockClear();
      const c = createClient({ key: KEY, baseUrl: BASE, sessionId: refused });
      expect(c.sessionId).toMatch(VALID);
      expect(c.sessionId).not.toBe(refused);
      expect(warn).toHaveBeenCalledTimes(1);
      await c.getAd('pl_session');
      expect(requests('/functions/v1/ads')[0]!.url.searchParams.get('session_id')).toBe(c.sessionId);
    }

    for (const valid of ['sess_ok:1.2-3', 'abcdefgh', 'A'.repeat(64)]) {
      warn.mockClear();
      fetchMock.mockClear();
      const c = createClient({ key: KEY, baseUrl: BASE, sessionId: valid });
      expect(c.sessionId).toBe(valid);
      expect(warn).not.toHaveBeenCalled();
      await c.getAd('pl_session');
      expect(requests('/functions/v1/ads')[0]!.url.searchParams.get('session_id')).toBe(valid);
    }

    // None given: a random valid one, without a warning.
    warn.mockClear();
    expect(createClient({ key: KEY, baseUrl: BASE }).sessionId).toMatch(VALID);
    expect(warn).not.toHaveBeenCalled();
  });

  it('on 204 fills the slot with the fallback (a string, a Node, or what a function makes) and emits no-fill, without error', async () => {
    routes.set('/functions/v1/ads', () => new Response(null, { status: 204 }));
    const c = client();

    const asText = slot();
    const node = document.createElement('em');
    node.textContent = 'house ad';
    const asNode = slot();
    const made = vi.fn(() => {
      const p = document.createElement('p');
      p.textContent = 'made on demand';
      return p;
    });
    const asFunction = slot();

    expect(() => {
      c.render(asText, 'pl_text', { format: 'tooltip', fallback: 'Nothing to show' });
      c.render(asNode, 'pl_node', { format: 'tooltip', fallback: node });
      c.render(asFunction, 'pl_fn', { format: 'tooltip', fallback: made });
    }).not.toThrow();
    expect(made).not.toHaveBeenCalled();
    await settle();

    expect(asText.textContent).toBe('Nothing to show');
    expect(asNode.firstChild).toBe(node);
    expect(made).toHaveBeenCalledTimes(1);
    expect(asFunction.querySelector('p')?.textContent).toBe('made on demand');
    expect(eventsOf('no-fill').map((e) => e.placementId)).toEqual(['pl_text', 'pl_node', 'pl_fn']);
    expect(eventsOf('error')).toHaveLength(0);
    expect(eventsOf('filled')).toHaveLength(0);
    await expect(c.getAd('pl_text')).resolves.toBeNull();
  });

  const failures: [string, Handler][] = [
    ['a 500 answer', () => json({ error: { message: 'boom' } }, 500)],
    ['a fetch that rejects', () => Promise.reject(new TypeError('Failed to fetch'))],
    ['a body that is not JSON', () => new Response('<html>oops</html>', { status: 200, headers: { 'content-type': 'text/html' } })],
  ];
  for (const [name, handler] of failures) {
    it(`on ${name} shows the fallback and emits one error event, throwing and rejecting nothing`, async () => {
      routes.set('/functions/v1/ads', handler);
      const c = client();
      const target = slot();

      expect(() => c.render(target, 'pl_fail', { format: 'sponsored_card', fallback: 'fallback here' })).not.toThrow();
      await settle();

      expect(target.textContent).toBe('fallback here');
      expect(target.querySelector('.mz-ad')).toBeNull();
      const errors = eventsOf('error');
      expect(errors).toHaveLength(1);
      expect(errors[0]!.placementId).toBe('pl_fail');
      expect(errors[0]!.error).toBeInstanceOf(Error);

      // Asked directly, the same failure is a null ad (and one more error event), not a rejection.
      await expect(c.getAd('pl_direct')).resolves.toBeNull();
      expect(eventsOf('error').map((e) => e.placementId)).toEqual(['pl_fail', 'pl_direct']);
      await new Promise<void>((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
    });
  }

  it("puts the service's error message in the error event of a non-2xx ad answer", async () => {
    routes.set('/functions/v1/ads', () => json({ error: { message: 'placement pl_paused is paused' } }, 403));
    const c = client();

    await expect(c.getAd('pl_paused')).resolves.toBeNull();
    c.render(slot(), 'pl_paused_render', { format: 'tooltip' });
    await settle();

    const errors = eventsOf('error');
    expect(errors.map((e) => e.placementId)).toEqual(['pl_paused', 'pl_paused_render']);
    for (const e of errors) {
      expect(e.error).toBeInstanceOf(Error);
      expect((e.error as Error).message).toContain('placement pl_paused is paused');
      expect((e.error as Error).message).toContain('403');
    }
  });

  it('on a request slower than timeoutMs shows the fallback at the timeout and emits one error event, throwing and rejecting nothing', async () => {
    routes.set('/functions/v1/ads', (_url, init) => pendingUntilAborted(init));
    const c = client({ timeoutMs: 800 });
    const target = slot();

    c.render(target, 'pl_slow', { format: 'inline_text', fallback: () => 'too slow' });
    await vi.advanceTimersByTimeAsync(799);
    expect(target.textContent).toBe('');
    expect(eventsOf('error')).toHaveLength(0);

    await vi.advanceTimersByTimeAsync(1);
    await settle();
    expect(target.textContent).toBe('too slow');
    expect(eventsOf('error')).toHaveLength(1);
    expect(eventsOf('error')[0]!.placementId).toBe('pl_slow');
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(unhandled).toEqual([]);
  });

  it('emits one error event for a target that is not a selector or matches nothing, and throws nothing', async () => {
    const c = client();
    for (const target of ['<not a selector>', '#nowhere']) {
      let placement: ReturnType<typeof c.render> | undefined;
      expect(() => (placement = c.render(target, 'pl_nowhere'))).not.toThrow();
      expect(placement!.ad).toBeNull();
      expect(() => placement!.destroy()).not.toThrow();
    }
    expect(eventsOf('error')).toHaveLength(2);
  });

  it('emits an error event for a target that is an object but not an element (a plain object, a text node), and throws nothing', async () => {
    serveAd(makeAd('sponsored_card'));
    const c = client();
    const text = document.createTextNode('not an element');
    document.body.append(text);
    for (const target of [{} as unknown as Element, text as unknown as Element, document as unknown as Element]) {
      let placement: ReturnType<typeof c.render> | undefined;
      expect(() => (placement = c.render(target, 'pl_not_element', { format: 'sponsored_card', fallback: 'fallback' }))).not.toThrow();
      expect(placement!.ad).toBeNull();
      expect(() => placement!.destroy()).not.toThrow();
    }
    await settle();

    const errors = eventsOf('error');
    expect(errors).toHaveLength(3);
    for (const e of errors) {
      expect(e.placementId).toBe('pl_not_element');
      expect(e.error).toBeInstanceOf(Error);
    }
    expect(requests('/functions/v1/ads')).toHaveLength(0);
    expect(text.textContent).toBe('not an element');
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(unhandled).toEqual([]);
  });

  it('when the fallback function throws, emits one error event, throwing and rejecting nothing', async () => {
    routes.set('/functions/v1/ads', () => new Response(null, { status: 204 }));
    const c = client();
    const target = slot();
    const failure = new Error('fallback broke');

    expect(() =>
      c.render(target, 'pl_bad_fallback', {
        format: 'tooltip',
        fallback: () => {
          throw failure;
        },
      }),
    ).not.toThrow();
    await settle();
    await new Promise<void>((resolve) => setImmediate(resolve));

    const errors = eventsOf('error');
    expect(errors).toHaveLength(1);
    expect(errors[0]!.placementId).toBe('pl_bad_fallback');
    expect(errors[0]!.error).toBe(failure);
    expect(eventsOf('no-fill')).toHaveLength(1);
    expect(target.childNodes).toHaveLength(0);
    expect(unhandled).toEqual([]);
  });

  const notAds: [string, () => unknown][] = [
    ['an empty object', () => ({})],
    ['an ad whose click_url is javascript:', () => ({ ...makeAd('sponsored_card'), click_url: 'javascript:alert(1)' })],
  ];
  for (const [name, body] of notAds) {
    it(`on JSON that is not an ad (${name}) shows the fallback and emits error, not filled, leaving placement.ad null`, async () => {
      routes.set('/functions/v1/ads', () => json(body()));
      const c = client();
      const target = slot();

      const placement = c.render(target, 'pl_not_ad', { format: 'sponsored_card', fallback: 'fallback here' });
      await settle();

      expect(target.textContent).toBe('fallback here');
      expect(target.querySelector('.mz-ad')).toBeNull();
      expect(document.querySelector('a[href^="javascript:"]')).toBeNull();
      expect(placement.ad).toBeNull();
      expect(eventsOf('filled')).toHaveLength(0);
      const errors = eventsOf('error');
      expect(errors).toHaveLength(1);
      expect(errors[0]!.placementId).toBe('pl_not_ad');
      expect(FakeIntersectionObserver.instances).toHaveLength(0);

      await expect(c.getAd('pl_direct')).resolves.toBeNull();
      expect(eventsOf('filled')).toHaveLength(0);
      expect(eventsOf('error')).toHaveLength(2);
      await new Promise<void>((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
    });
  }
});

// ---------------------------------------------------------------- viewability

describe('viewability', () => {
  it('sends one impression for an ad 60% in view of a visible, focused tab for 1 s, in one POST after the 1 s batching delay', async () => {
    const c = client();
    const ad = makeAd('sponsored_card');
    const { root } = await renderAd(c, ad);
    expect(FakeIntersectionObserver.watching(root)).toHaveLength(1);

    expect(see(root, 0.6, 300, 120)).toBe(1);
    await vi.advanceTimersByTimeAsync(900);
    // The page reports a change at 900 ms (more in view): the SDK looks again, and 0.9 s is not 1 s.
    see(root, 0.8, 300, 120);
    expect(eventsOf('viewable')).toHaveLength(0);
    expect(eventPosts()).toHaveLength(0);

    await vi.advanceTimersByTimeAsync(130); // past 1 s and the SDK's timer after it
    expect(eventsOf('viewable')).toHaveLength(1);
    expect(eventPosts()).toHaveLength(0); // batched: not sent yet

    await vi.advanceTimersByTimeAsync(1000);
    const [post] = requests('/functions/v1/events');
    expect(requests('/functions/v1/events')).toHaveLength(1);
    expect(`${post!.url.origin}${post!.url.pathname}`).toBe(`${BASE}/functions/v1/events`);
    expect(post!.init.method).toBe('POST');
    expect(header(post!.init, 'x-api-key')).toBe(KEY);
    const sent = eventPosts()[0]!;
    expect(sent).toHaveLength(1);
    expect(sent[0]).toEqual({
      id: `${ad.decision_id}.impression`,
      type: 'impression',
      token: ad.token,
      viewability: { visible_share: 0.6, visible_seconds: expect.any(Number), area_px: 36_000 },
    });
    expect(sent[0]!.viewability.visible_seconds).toBeGreaterThanOrEqual(1);
    expect(sent[0]!.viewability.visible_seconds).toBeLessThan(1.2);

    await vi.advanceTimersByTimeAsync(30_000);
    expect(requests('/functions/v1/events')).toHaveLength(1);
  });

  it('restarts the count when the ad goes out of view (20%) at 600 ms and comes back', async () => {
    const c = client();
    const { root } = await renderAd(c, makeAd('sponsored_card'));

    see(root, 0.6);
    await vi.advanceTimersByTimeAsync(600);
    see(root, 0.2);
    await vi.advanceTimersByTimeAsync(100);
    see(root, 0.6); // back at 700 ms: due at 1700 ms, not 1000 ms
    await vi.advanceTimersByTimeAsync(900); // 1600 ms
    expect(eventsOf('viewable')).toHaveLength(0);

    await vi.advanceTimersByTimeAsync(150); // 1750 ms
    expect(eventsOf('viewable')).toHaveLength(1);
    expect(eventsOf('viewable')[0]!.evidence!.visible_seconds).toBeGreaterThanOrEqual(1);
    expect(eventsOf('viewable')[0]!.evidence!.visible_seconds).toBeLessThan(1.1);
    await vi.advanceTimersByTimeAsync(1000);
    expect(eventPosts().flat()).toHaveLength(1);
  });

  it('never counts while the tab is hidden, and counts from when it becomes visible again', async () => {
    const c = client();
    const { root } = await renderAd(c, makeAd('sponsored_card'));

    visibility = 'hidden';
    see(root, 1);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(eventsOf('viewable')).toHaveLength(0);
    expect(eventPosts()).toHaveLength(0);

    visibility = 'visible';
    document.dispatchEvent(new Event('visibilitychange'));
    await vi.advanceTimersByTimeAsync(900);
    expect(eventsOf('viewable')).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(200);
    expect(eventsOf('viewable')).toHaveLength(1);
  });

  it('never counts while the tab is visible but not focused, and counts from when it gains focus', async () => {
    const c = client();
    const { root } = await renderAd(c, makeAd('inline_text'));

    focused = false;
    see(root, 1, 400, 24);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(eventsOf('viewable')).toHaveLength(0);

    focused = true;
    window.dispatchEvent(new Event('focus'));
    await vi.advanceTimersByTimeAsync(900);
    expect(eventsOf('viewable')).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(200);
    expect(eventsOf('viewable')).toHaveLength(1);

    await vi.advanceTimersByTimeAsync(1000);
    expect(
      eventPosts()
        .flat()
        .map((e) => e.viewability.area_px),
    ).toEqual([9_600]);
  });

  it('counts a large ad (970×250, at least 242,500 px) at 35% in view, and not a smaller one', async () => {
    const c = client();
    const large = await renderAd(c, makeAd('sponsored_card'));
    const small = await renderAd(c, makeAd('sponsored_card'));

    see(large.root, 0.35, 970, 250);
    see(small.root, 0.35, 300, 250);
    await vi.advanceTimersByTimeAsync(5000);

    const sent = eventPosts().flat();
    expect(sent).toHaveLength(1);
    expect(sent[0]!.viewability).toMatchObject({ visible_share: 0.35, area_px: 242_500 });
    expect(sent[0]!.viewability.visible_seconds).toBeGreaterThanOrEqual(1);
  });

  it('counts a floating_video with a video only after 2 s of playback in view', async () => {
    const c = client();
    const ad = makeAd('floating_video', { video_url: `${BASE}/clip.mp4`, image_url: `${BASE}/poster.jpg` });
    const { root, target } = await renderAd(c, ad);
    const video = target.querySelector('video');
    expect(video).not.toBeNull();
    expect(video!.muted).toBe(true);

    // In view but not playing: never counts.
    Object.defineProperty(video!, 'paused', { configurable: true, get: () => true });
    see(root, 1, 320, 240);
    await vi.advanceTimersByTimeAsync(5000);
    expect(eventsOf('viewable')).toHaveLength(0);

    Object.defineProperty(video!, 'paused', { configurable: true, get: () => false });
    video!.dispatchEvent(new Event('playing'));
    await vi.advanceTimersByTimeAsync(1500);
    expect(eventsOf('viewable')).toHaveLength(0); // 1 s is not enough for video
    await vi.advanceTimersByTimeAsync(400); // 1.9 s
    expect(eventsOf('viewable')).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(200); // 2.1 s
    expect(eventsOf('viewable')).toHaveLength(1);

    await vi.advanceTimersByTimeAsync(1000);
    const sent = eventPosts().flat();
    expect(sent).toHaveLength(1);
    expect(sent[0]!.id).toBe(`${ad.decision_id}.impression`);
    expect(sent[0]!.viewability.visible_seconds).toBeGreaterThanOrEqual(2);
    expect(sent[0]!.viewability.area_px).toBe(76_800);
  });

  it('watches with IntersectionObserver thresholds every 1%, from 0 to 1', () => {
    const c = client();
    const element = slot();
    c.trackImpression(makeAd('tooltip'), element);
    const [observer] = FakeIntersectionObserver.watching(element);
    const threshold = observer!.options?.threshold;
    expect(Array.isArray(threshold)).toBe(true);
    const values = threshold as number[];
    expect(values).toHaveLength(101);
    values.forEach((value, i) => expect(value).toBeCloseTo(i * 0.01, 10));
    expect(values[0]).toBe(0);
    expect(values[100]).toBe(1);
  });

  /** A follow-up's rule: all of it in view, for one continuous second. */
  const WHOLE: ViewabilityRule = { min_visible_share: 1, min_seconds: 1 };

  it('counts an ad whose rule asks for all of it when it is all in view, though at a fractional pixel the browser reports it a hair short', async () => {
    const c = client();
    const ad = makeAd('sponsored_follow_up', { headline: 'How do I turn meeting notes into tasks?' }, WHOLE);
    const { root } = await renderAd(c, ad);
    // Laid out at y = 400.4 in a box clipped at whole pixels: 0.4 px of its 44.2 px is reported out of view.
    seeRect(root, { width: 358, height: 44.2 }, { width: 358, height: 43.8 });
    await vi.advanceTimersByTimeAsync(1100);
    expect(eventsOf('viewable')).toHaveLength(1);
    expect(eventsOf('viewable')[0]!.evidence!.visible_share).toBe(1);
    await vi.advanceTimersByTimeAsync(1000);
    expect(eventPosts().flat()).toEqual([
      { id: `${ad.decision_id}.impression`, type: 'impression', token: ad.token, viewability: expect.objectContaining({ visible_share: 1 }) },
    ]);
  });

  it('does not count an ad whose rule asks for all of it while a pixel or more of it is out of view, each way', async () => {
    const c = client();
    const ad = makeAd('sponsored_follow_up', {}, WHOLE);
    const { root } = await renderAd(c, ad);
    for (const seen of [
      { width: 358, height: 43.2 },
      { width: 357, height: 44.2 },
      { width: 356.9, height: 44.2 },
    ]) {
      seeRect(root, { width: 358, height: 44.2 }, seen);
      await vi.advanceTimersByTimeAsync(5000);
    }
    // And out of view altogether.
    seeRect(root, { width: 358, height: 44.2 }, { width: 0, height: 0 });
    await vi.advanceTimersByTimeAsync(5000);
    expect(eventsOf('viewable')).toHaveLength(0);
    expect(eventPosts()).toHaveLength(0);
  });

  it('sends no impression for an ad that expired before it was viewable, and emits an error saying so', async () => {
    const c = client();
    const past = makeAd('tooltip');
    past.expires_at = new Date(Date.now() - 60_000).toISOString();
    // Valid when watched, expired 500 ms later, before its second in view is over.
    const during = makeAd('sponsored_card');
    during.expires_at = new Date(Date.now() + 500).toISOString();
    const first = slot();
    const second = slot();

    expect(() => {
      c.trackImpression(past, first);
      c.trackImpression(during, second);
    }).not.toThrow();
    see(first, 1);
    see(second, 1);
    await vi.advanceTimersByTimeAsync(10_000);
    await settle();

    expect(eventsOf('viewable')).toHaveLength(0);
    expect(eventPosts()).toHaveLength(0);
    const errors = eventsOf('error');
    expect(errors.map((e) => e.ad?.decision_id)).toEqual([past.decision_id, during.decision_id]);
    for (const e of errors) expect((e.error as Error).message).toMatch(/expir/i);
    expect(errors.map((e) => e.placementId)).toEqual([past.placement_id, during.placement_id]);
  });

  it("keeps an ad it received valid for the time the service gave it, on the page's own clock, however wrong the device's clock", async () => {
    const c = client();
    const served = Date.now();
    // The service's clock: served now, valid an hour; the device's clock runs an hour and a half fast.
    const ad = makeAd('sponsored_card');
    ad.expires_at = new Date(served + 3_600_000).toISOString();
    vi.setSystemTime(served + 90 * 60_000);
    const { root } = await renderAd(c, ad, slot(), () => withDate(ad, served));
    see(root, 1);
    await vi.advanceTimersByTimeAsync(1_100);
    await vi.advanceTimersByTimeAsync(1_000);
    await settle();
    expect(eventsOf('error')).toEqual([]);
    expect(postedIds()).toEqual([`${ad.decision_id}.impression`]);
  });

  it('drops an ad whose time to live has run out since it arrived, though the device clock is slow', async () => {
    const c = client();
    const served = Date.now();
    const ad = makeAd('tooltip');
    ad.expires_at = new Date(served + 60_000).toISOString();
    // An hour slow: by the device's clock, the ad would stay valid for an hour more.
    vi.setSystemTime(served - 3_600_000);
    const { root } = await renderAd(c, ad, slot(), () => withDate(ad, served));
    await vi.advanceTimersByTimeAsync(61_000);
    see(root, 1);
    await vi.advanceTimersByTimeAsync(2_000);
    await settle();
    expect(eventsOf('viewable')).toHaveLength(0);
    expect(eventPosts()).toHaveLength(0);
    expect((eventsOf('error')[0]?.error as Error).message).toMatch(/expir/i);
  });

  it('leaves the expiry of an ad answered without a Date header to the service', async () => {
    const c = client();
    const ad = makeAd('tooltip');
    // By the device's clock it expired a minute ago; nothing says what the service's clock says.
    ad.expires_at = new Date(Date.now() - 60_000).toISOString();
    const { root } = await renderAd(c, ad);
    see(root, 1);
    await vi.advanceTimersByTimeAsync(2_100);
    await settle();
    expect(postedIds()).toEqual([`${ad.decision_id}.impression`]);
  });

  it('emits an error event, throwing nothing, when IntersectionObserver refuses the element', async () => {
    const c = client();
    const failure = new TypeError("Failed to construct 'IntersectionObserver'");
    vi.stubGlobal(
      'IntersectionObserver',
      class {
        constructor() {
          throw failure;
        }
      },
    );
    const ad = makeAd('tooltip');
    let stop: (() => void) | undefined;
    expect(() => (stop = c.trackImpression(ad, slot()))).not.toThrow();
    expect(() => stop!()).not.toThrow();
    expect(eventsOf('error')).toHaveLength(1);
    expect(eventsOf('error')[0]!.error).toBe(failure);
    expect(eventsOf('error')[0]!.ad).toBe(ad);

    // As a real observer does for what is not an element: observe() throws.
    class Refusing extends FakeIntersectionObserver {
      override observe(element: Element): void {
        if (element.nodeType !== 1) throw new TypeError("Failed to execute 'observe': parameter 1 is not of type 'Element'");
        super.observe(element);
      }
    }
    vi.stubGlobal('IntersectionObserver', Refusing);
    const other = makeAd('tooltip');
    expect(() => (stop = c.trackImpression(other, document.createTextNode('x') as unknown as Element))).not.toThrow();
    expect(() => stop!()).not.toThrow();
    expect(eventsOf('error')).toHaveLength(2);
    expect(eventsOf('error')[1]!.ad).toBe(other);
    await vi.advanceTimersByTimeAsync(5000);
    expect(eventPosts()).toHaveLength(0);
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(unhandled).toEqual([]);
  });

  it("restarts a video ad's count when its playback pauses", async () => {
    const c = client();
    const ad = makeAd('floating_video', { video_url: `${BASE}/clip.mp4` });
    const { root, target } = await renderAd(c, ad);
    const video = target.querySelector('video')!;
    let paused = false;
    Object.defineProperty(video, 'paused', { configurable: true, get: () => paused });

    see(root, 1, 320, 240);
    video.dispatchEvent(new Event('playing'));
    await vi.advanceTimersByTimeAsync(1500);
    paused = true;
    video.dispatchEvent(new Event('pause'));
    await vi.advanceTimersByTimeAsync(100);
    paused = false;
    video.dispatchEvent(new Event('playing')); // at 1.6 s: due at 3.6 s
    await vi.advanceTimersByTimeAsync(1900); // 3.5 s
    expect(eventsOf('viewable')).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(200); // 3.7 s
    expect(eventsOf('viewable')).toHaveLength(1);
  });
});

// ---------------------------------------------------------------- once per decision

describe('an ad the app’s server fetched', () => {
  it('findAd splits the answer’s text from the ad @monetize/server appended, and show() renders it and counts it once viewable, asking for nothing', async () => {
    const c = client();
    const ad = makeAd('inline_text', { headline: 'Notes — that write themselves ✓' });
    const answer = `Keep one shared notebook per client.${adMarkdown(ad)}`;
    const found = findAd(answer);
    expect(found.text).toBe('Keep one shared notebook per client.');
    expect(found.ad).toEqual(ad);
    const target = slot();
    c.show(target, found.ad);
    await settle();
    expect(requests('/functions/v1/ads')).toHaveLength(0);
    expect(eventsOf('filled')).toHaveLength(1);
    const root = target.querySelector<HTMLElement>('.mz-ad')!;
    expect(root.textContent).toContain('Notes — that write themselves ✓');
    see(root, 1, 300, 40);
    await vi.advanceTimersByTimeAsync(2100);
    expect(eventPosts().flat()).toEqual([{ id: `${ad.decision_id}.impression`, type: 'impression', token: ad.token, viewability: expect.any(Object) }]);
  });

  it('findAd leaves text with no ad, or with data that is not an ad, as it is; show() of what is not an ad is an error event and the fallback, throwing nothing', async () => {
    expect(findAd('Just an answer.')).toEqual({ text: 'Just an answer.', ad: null });
    const broken = 'An answer.\n\n---\n\n**Sponsored** · X: [Y](https://x.test)\n\n<!-- monetize-ad bm90IGFuIGFk -->\n';
    expect(findAd(broken)).toEqual({ text: broken, ad: null });
    expect(findAd('An answer. <!-- monetize-ad %%% -->')).toEqual({ text: 'An answer. <!-- monetize-ad %%% -->', ad: null });
    const c = client();
    const target = slot();
    expect(() => c.show(target, { decision_id: 'x' }, { fallback: 'No ad' })).not.toThrow();
    await settle();
    expect(eventsOf('error')).toHaveLength(1);
    expect(target.textContent).toBe('No ad');
  });
});

describe('one impression per decision', () => {
  it('sends one impression when trackImpression is called twice for the same ad', async () => {
    const c = client();
    const ad = makeAd('tooltip');
    const first = slot();
    const second = slot();

    c.trackImpression(ad, first);
    c.trackImpression(ad, second);
    expect(see(first, 1)).toBe(1);
    expect(see(second, 1)).toBe(1);
    await vi.advanceTimersByTimeAsync(5000);

    expect(eventsOf('viewable')).toHaveLength(1);
    expect(postedIds()).toEqual([`${ad.decision_id}.impression`]);

    // Once counted, watching it again watches nothing.
    const third = slot();
    c.trackImpression(ad, third);
    expect(FakeIntersectionObserver.watching(third)).toHaveLength(0);
    expect(see(third, 1)).toBe(0);
    await vi.advanceTimersByTimeAsync(5000);
    expect(eventPosts().flat()).toHaveLength(1);
  });

  it('sends one impression when the same decision is rendered again after destroy', async () => {
    const c = client();
    const ad = makeAd('sponsored_card');

    const first = await renderAd(c, ad);
    see(first.root, 1);
    await vi.advanceTimersByTimeAsync(2100);
    expect(eventPosts().flat()).toHaveLength(1);
    first.destroy();
    expect(first.target.querySelector('.mz-ad')).toBeNull();

    const again = await renderAd(c, ad); // the service answers the same decision
    see(again.root, 1);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(eventsOf('viewable')).toHaveLength(1);
    expect(postedIds()).toEqual([`${ad.decision_id}.impression`]);
  });

  it('counts a decision rendered again after being destroyed before it was viewable, once', async () => {
    const c = client();
    const ad = makeAd('sponsored_card');

    const first = await renderAd(c, ad);
    see(first.root, 1);
    await vi.advanceTimersByTimeAsync(500);
    first.destroy();
    await vi.advanceTimersByTimeAsync(5000);
    expect(eventsOf('viewable')).toHaveLength(0);

    const again = await renderAd(c, ad);
    see(again.root, 1);
    await vi.advanceTimersByTimeAsync(5000);
    expect(postedIds()).toEqual([`${ad.decision_id}.impression`]);
  });

  it('does not send an impression for a decision another copy of the SDK on the page already counted', async () => {
    const shared = (globalThis as { [key: symbol]: unknown })[Symbol.for('monetize.impressed')];
    expect(shared).toBeInstanceOf(Set);
    const impressed = shared as Set<string>;

    // The other copy counted this decision: this client watches nothing for it.
    const ad = makeAd('tooltip');
    impressed.add(ad.decision_id);
    const c = client();
    const element = slot();
    c.trackImpression(ad, element);
    expect(see(element, 1)).toBe(0);
    await vi.advanceTimersByTimeAsync(5000);
    expect(eventsOf('viewable')).toHaveLength(0);
    expect(eventPosts()).toHaveLength(0);

    // And what this client counts, the other copies see.
    const mine = makeAd('tooltip');
    const other = slot();
    c.trackImpression(mine, other);
    see(other, 1);
    await vi.advanceTimersByTimeAsync(5000);
    expect(impressed.has(mine.decision_id)).toBe(true);
    expect(postedIds()).toEqual([`${mine.decision_id}.impression`]);
  });
});

// ---------------------------------------------------------------- sending events

describe('flush', () => {
  /** Makes an impression wait in the client's queue (viewable, before the batching delay ends). */
  async function queued(c: MonetizeClient): Promise<Ad> {
    const ad = makeAd('tooltip');
    const element = slot();
    c.trackImpression(ad, element);
    see(element, 1);
    await vi.advanceTimersByTimeAsync(1100);
    expect(eventsOf('viewable')).toHaveLength(1);
    expect(fetchMock).not.toHaveBeenCalled();
    return ad;
  }

  function beacon(answer: boolean) {
    const sendBeacon = vi.fn<(url: string, data?: BodyInit | null) => boolean>(() => answer);
    Object.defineProperty(navigator, 'sendBeacon', { configurable: true, writable: true, value: sendBeacon });
    return sendBeacon;
  }

  afterEach(() => {
    Reflect.deleteProperty(navigator, 'sendBeacon');
  });

  it('flush(true) sends the events with sendBeacon, as a text/plain Blob without the key, when the beacon is accepted', async () => {
    const sendBeacon = beacon(true);
    const c = client();
    const ad = await queued(c);

    c.flush(true);
    expect(sendBeacon).toHaveBeenCalledTimes(1);
    const [url, data] = sendBeacon.mock.calls[0]!;
    expect(url).toBe(`${BASE}/functions/v1/events`);
    expect(data).toBeInstanceOf(Blob);
    const blob = data as Blob;
    expect(blob.type).toBe('text/plain');
    const text = await blob.text();
    expect(text).not.toContain(KEY);
    expect(url).not.toContain(KEY);
    expect((JSON.parse(text) as { events: SentEvent[] }).events).toEqual([
      expect.objectContaining({ id: `${ad.decision_id}.impression`, type: 'impression', token: ad.token }),
    ]);

    // Sent: neither the batching timer nor another flush sends it again.
    await vi.advanceTimersByTimeAsync(10_000);
    c.flush(true);
    expect(sendBeacon).toHaveBeenCalledTimes(1);
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('sends what waits by beacon when the tab is hidden, and when the page goes away', async () => {
    const sendBeacon = beacon(true);
    // What the beacons carried. (Clients of earlier tests listen to the page too.)
    const beaconed = async () =>
      (await Promise.all(sendBeacon.mock.calls.map(([, data]) => (data as Blob).text()))).flatMap((t) =>
        (JSON.parse(t) as { events: SentEvent[] }).events.map((e) => e.id),
      );
    const c = client();
    const first = await queued(c);
    visibility = 'hidden';
    document.dispatchEvent(new Event('visibilitychange', { bubbles: true }));
    expect(await beaconed()).toContain(`${first.decision_id}.impression`);

    const second = makeAd('tooltip');
    const element = slot();
    visibility = 'visible';
    document.dispatchEvent(new Event('visibilitychange', { bubbles: true }));
    c.trackImpression(second, element);
    see(element, 1);
    await vi.advanceTimersByTimeAsync(1100);
    expect(await beaconed()).not.toContain(`${second.decision_id}.impression`);
    dispatchEvent(new Event('pagehide'));
    expect(await beaconed()).toContain(`${second.decision_id}.impression`);
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('flush(true) falls back to fetch with keepalive and the x-api-key header when sendBeacon answers false', async () => {
    const sendBeacon = beacon(false);
    const c = client();
    const ad = await queued(c);

    c.flush(true);
    expect(sendBeacon).toHaveBeenCalledTimes(1);
    const posts = requests('/functions/v1/events');
    expect(posts).toHaveLength(1);
    expect(posts[0]!.init).toMatchObject({ method: 'POST', keepalive: true });
    expect(header(posts[0]!.init, 'x-api-key')).toBe(KEY);
    expect(eventPosts()[0]!.map((e) => e.id)).toEqual([`${ad.decision_id}.impression`]);

    await vi.advanceTimersByTimeAsync(10_000);
    expect(requests('/functions/v1/events')).toHaveLength(1);
  });

  it('keeps the events after a 503 answer and sends them again 5 s later', async () => {
    const answers = [503, 202];
    routes.set('/functions/v1/events', () => json({}, answers.shift() ?? 500));
    const c = client();
    const ad = await queued(c);

    await vi.advanceTimersByTimeAsync(1000); // the 1 s batching delay ends
    await settle();
    expect(eventPosts()).toHaveLength(1);
    expect(eventsOf('error')).toHaveLength(1);

    await vi.advanceTimersByTimeAsync(4800);
    expect(eventPosts()).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(300);
    await settle();
    const posts = eventPosts();
    expect(posts).toHaveLength(2);
    expect(posts[1]).toEqual(posts[0]);
    expect(posts[1]!.map((e) => e.id)).toEqual([`${ad.decision_id}.impression`]);

    // Accepted the second time: nothing more.
    await vi.advanceTimersByTimeAsync(30_000);
    expect(eventPosts()).toHaveLength(2);
  });

  /** An impression viewable now, waiting for the 1 s batching delay. */
  async function viewableAd(c: MonetizeClient): Promise<Ad> {
    const ad = makeAd('tooltip');
    const element = slot();
    c.trackImpression(ad, element);
    see(element, 1);
    await vi.advanceTimersByTimeAsync(1100);
    return ad;
  }

  /** Moves the fake clock to `time` (ms, as Date.now()), letting the answers settle. */
  async function advanceTo(time: number): Promise<void> {
    await vi.advanceTimersByTimeAsync(time - Date.now());
    await settle();
  }

  /** The events route: each POST takes the next answer ('fail': fetch rejects); records when it was asked. */
  function eventsAnswer(answers: ('fail' | 'ok')[], times: number[]): void {
    routes.set('/functions/v1/events', () => {
      times.push(Date.now());
      return (answers.shift() ?? 'fail') === 'fail' ? Promise.reject(new TypeError('Failed to fetch')) : json({ accepted: 1 }, 202);
    });
  }

  it('after a network failure sends the events again after 5, 10, 20 and 40 s, and drops them after the 5th failure', async () => {
    const times: number[] = [];
    eventsAnswer([], times);
    const c = client();
    const ad = await viewableAd(c);

    await vi.advanceTimersByTimeAsync(1000); // the 1 s batching delay ends
    await settle();
    expect(eventPosts()).toHaveLength(1);

    for (const [i, pause] of [5000, 10_000, 20_000, 40_000].entries()) {
      const due = times.at(-1)! + pause;
      await advanceTo(due - 50);
      expect(eventPosts()).toHaveLength(i + 1);
      await advanceTo(due + 50);
      expect(eventPosts()).toHaveLength(i + 2);
      expect(times.at(-1)).toBe(due);
    }
    expect(eventPosts()).toHaveLength(5);
    expect(eventPosts().every((events) => events.length === 1 && events[0]!.id === `${ad.decision_id}.impression`)).toBe(true);

    // The 5th failure: dropped. Nothing more, however long the page stays.
    for (let i = 0; i < 10; i++) await advanceTo(Date.now() + 60_000);
    c.flush();
    await settle();
    expect(eventPosts()).toHaveLength(5);
    expect(eventsOf('error')).toHaveLength(5);
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(unhandled).toEqual([]);
  });

  it('starts counting failures again after a send succeeds', async () => {
    const times: number[] = [];
    eventsAnswer(['fail', 'fail', 'ok'], times);
    const c = client();
    const first = await viewableAd(c);
    await vi.advanceTimersByTimeAsync(1000);
    await settle();
    await advanceTo(times.at(-1)! + 5000 + 50);
    await advanceTo(times.at(-1)! + 10_000 + 50);
    expect(eventPosts()).toHaveLength(3); // fail, fail, accepted
    await advanceTo(Date.now() + 120_000);
    expect(eventPosts()).toHaveLength(3);

    // A new impression whose sends all fail: five tries again, from a 5 s pause, before it is dropped.
    const second = await viewableAd(c);
    await advanceTo(Date.now() + 1000);
    const tried = (): number => eventPosts().filter((events) => events.some((e) => e.id === `${second.decision_id}.impression`)).length;
    expect(tried()).toBe(1);
    for (const pause of [5000, 10_000, 20_000, 40_000]) await advanceTo(times.at(-1)! + pause + 50);
    expect(tried()).toBe(5);
    expect(times.slice(3).map((t, i, all) => (i === 0 ? 0 : t - all[i - 1]!))).toEqual([0, 5000, 10_000, 20_000, 40_000]);
    await advanceTo(Date.now() + 600_000);
    expect(tried()).toBe(5);
    expect(
      eventPosts()
        .flat()
        .filter((e) => e.id === `${first.decision_id}.impression`),
    ).toHaveLength(3);
  });

  it('emits an error naming the event and its reason for each result rejected or invalid in a 200 answer, and none for recorded or duplicate', async () => {
    const statuses = [
      { status: 'rejected', reason: 'expired_token' },
      { status: 'invalid', reason: 'bot' },
      { status: 'recorded' },
      { status: 'duplicate', reason: 'already_counted' },
    ];
    routes.set('/functions/v1/events', (_url, init) => {
      const sent = (JSON.parse(String(init.body)) as { events: SentEvent[] }).events;
      const results = sent.map((e, i) => ({ id: e.id, ...statuses[i]! }));
      return json({ received: sent.length, recorded: 1, duplicates: 1, invalid: 1, rejected: 1, results });
    });
    const c = client();
    const ads = Array.from({ length: 4 }, () => makeAd('tooltip'));
    for (const ad of ads) {
      const element = slot();
      c.trackImpression(ad, element);
      see(element, 1);
    }
    await vi.advanceTimersByTimeAsync(2100);
    await settle();
    expect(eventPosts()).toHaveLength(1);
    expect(eventPosts()[0]!.map((e) => e.id)).toEqual(ads.map((ad) => `${ad.decision_id}.impression`));

    const messages = eventsOf('error').map((e) => (e.error as Error).message);
    expect(messages).toHaveLength(2);
    expect(messages[0]).toContain(`${ads[0]!.decision_id}.impression`);
    expect(messages[0]).toContain('rejected');
    expect(messages[0]).toContain('expired_token');
    expect(messages[1]).toContain(`${ads[1]!.decision_id}.impression`);
    expect(messages[1]).toContain('invalid');
    expect(messages[1]).toContain('bot');
    for (const ad of ads.slice(2)) expect(messages.join('\n')).not.toContain(ad.decision_id);

    // Answered: not sent again.
    await vi.advanceTimersByTimeAsync(60_000);
    expect(eventPosts()).toHaveLength(1);
  });

  it('flush(true) with more than 100 impressions waiting beacons them all, 100 at most per beacon', async () => {
    const sendBeacon = beacon(true);
    const c = client();
    const ads = Array.from({ length: 130 }, () => makeAd('tooltip'));
    for (const ad of ads) {
      const element = slot();
      c.trackImpression(ad, element);
      see(element, 1);
    }
    await vi.advanceTimersByTimeAsync(1100);
    expect(eventsOf('viewable')).toHaveLength(130);
    expect(fetchMock).not.toHaveBeenCalled();

    c.flush(true);
    expect(sendBeacon).toHaveBeenCalledTimes(2);
    const batches = await Promise.all(
      sendBeacon.mock.calls.map(async ([, data]) => (JSON.parse(await (data as Blob).text()) as { events: SentEvent[] }).events.map((e) => e.id)),
    );
    expect(batches.map((b) => b.length)).toEqual([100, 30]);
    expect(batches.flat()).toEqual(ads.map((ad) => `${ad.decision_id}.impression`));

    // Nothing is left waiting: neither the batching timer nor another flush sends anything.
    await vi.advanceTimersByTimeAsync(10_000);
    c.flush(true);
    c.flush();
    await settle();
    expect(sendBeacon).toHaveBeenCalledTimes(2);
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('emits one error event for events refused with a 400 answer, and does not send them again', async () => {
    routes.set('/functions/v1/events', () => json({ error: { message: 'bad token' } }, 400));
    const c = client();
    await queued(c);

    await vi.advanceTimersByTimeAsync(1000);
    await settle();
    expect(eventPosts()).toHaveLength(1);
    const errors = eventsOf('error');
    expect(errors).toHaveLength(1);
    expect(errors[0]!.error).toBeInstanceOf(Error);

    await vi.advanceTimersByTimeAsync(60_000);
    c.flush();
    await settle();
    expect(eventPosts()).toHaveLength(1);
    expect(eventsOf('error')).toHaveLength(1);
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(unhandled).toEqual([]);
  });
});

// ---------------------------------------------------------------- refusals, explained in the console

describe('telling the console why the service refused', () => {
  /** A key of the publishable shape, and how the console lists it. */
  const LIVE_KEY = 'pk_live_7Hq2xVbN4mKp9RtL3wYc8ZsD1fGj6aEu';
  const MASKED = 'pk_live_7Hq2xVbN…6aEu';
  const envelope = (status: number, code: string, message: string, headers: Record<string, string> = {}) =>
    new Response(JSON.stringify({ error: { status, code, message } }), { status, headers: { 'content-type': 'application/json', ...headers } });
  const ORIGIN_REFUSED = () =>
    envelope(403, 'forbidden', `The origin ${location.origin} is not allowed to use this app's keys: add it to the app's allowed origins in the console.`);

  function keyed(key = LIVE_KEY): MonetizeClient {
    const c = createClient({ key, baseUrl: BASE, sessionId: 'sess_spec' });
    c.on((e) => events.push(e));
    return c;
  }

  /** What the console was told, as text. */
  const told = (spy: typeof consoleError | typeof consoleWarn): string[] => spy.mock.calls.map((args) => args.map(String).join(' '));

  it('explains a refused origin once per page load, naming the origin, the key and the fix, however often it is asked again, by whichever client or copy of the SDK', async () => {
    routes.set('/functions/v1/ads', ORIGIN_REFUSED);
    routes.set('/functions/v1/events', ORIGIN_REFUSED);
    const c = keyed();
    const targets = [slot(), slot(), slot()];
    expect(() => targets.forEach((t, i) => c.render(t, `pl_${i}`, { format: 'tooltip', fallback: 'fallback' }))).not.toThrow();
    await settle();
    await expect(c.getAd('pl_again')).resolves.toBeNull();
    await expect(keyed().getAd('pl_other_client')).resolves.toBeNull();
    // Another copy of the SDK on the page (the script and a bundled package): told already.
    vi.resetModules();
    const copy = (await import('../src/client')) as typeof import('../src/client');
    await expect(copy.createClient({ key: LIVE_KEY, baseUrl: BASE }).getAd('pl_copy')).resolves.toBeNull();
    // Its events refused too, for the same cause.
    const ad = makeAd('tooltip');
    const element = slot();
    c.trackImpression(ad, element);
    see(element, 1);
    await vi.advanceTimersByTimeAsync(2100);
    await settle();
    expect(eventPosts()).toHaveLength(1);

    expect(told(consoleError)).toEqual([
      `Monetize SDK: this page may not use key ${MASKED}: ${location.origin} is not one of the allowed web origins of the key's app, so no ads are shown. ` +
        `Fix: add ${location.origin} to "Allowed web origins" in the app's settings, in the console at ${BASE}/dashboard; it applies within 5 seconds. ` +
        `(The service answered 403 forbidden: The origin ${location.origin} is not allowed to use this app's keys: add it to the app's allowed origins in the console.)`,
    ]);
    expect(consoleWarn).not.toHaveBeenCalled();
    // The page's contract is unchanged: every placement shows its fallback, each request is an error event.
    for (const t of targets) expect(t.textContent).toBe('fallback');
    expect(eventsOf('error').map((e) => e.placementId)).toEqual(['pl_0', 'pl_1', 'pl_2', 'pl_again', 'pl_other_client', '']);
    expect((eventsOf('error')[0]!.error as Error).message).toContain('ad request answered 403: The origin');
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(unhandled).toEqual([]);
  });

  const causes: { name: string; key?: string; answer: () => Response; says: string[]; never?: string[] }[] = [
    {
      name: 'an unknown key',
      answer: () => envelope(401, 'invalid_token', 'Unknown API key: check the key your app sends, or create one in the console.'),
      says: [`the service knows no key ${MASKED}`, `console at ${BASE}/dashboard`, '401 invalid_token'],
    },
    {
      name: 'a value that is not a key (never printed)',
      key: 'sk_live_a_secret_pasted_by_mistake',
      answer: () =>
        envelope(401, 'invalid_token', 'The x-api-key header does not hold an API key: a key is pk_live_ or pk_test_ followed by 32 letters and digits.'),
      says: ['the key given to createClient is not a publishable key', `copy your app's key in the console at ${BASE}/dashboard`],
      never: ['sk_live', 'secret'],
    },
    {
      name: 'a revoked key',
      answer: () => envelope(403, 'forbidden', 'This API key has been revoked: switch to another key.'),
      says: [`key ${MASKED} was revoked`, `create a key for the app in the console at ${BASE}/dashboard`],
    },
    {
      name: 'a key of an archived app',
      answer: () => envelope(403, 'forbidden', "This API key's app has been archived: its keys no longer work."),
      says: [`the app of key ${MASKED} was archived`],
    },
    {
      name: 'an unknown placement',
      answer: () => envelope(404, 'not_found', 'No placement with this id belongs to the app of this key.'),
      says: [`no ads for placement pl_cause: it is not a placement of the app of key ${MASKED}`, "copy the placement's id"],
    },
    {
      name: 'an invalid request',
      answer: () => envelope(400, 'invalid_request', 'Invalid query parameter `placement_id`: expected a UUID.'),
      says: ['a request was refused', '400 invalid_request: Invalid query parameter `placement_id`'],
    },
  ];
  for (const cause of causes) {
    it(`explains ${cause.name} as an error, once, in the console`, async () => {
      routes.set('/functions/v1/ads', cause.answer);
      const c = keyed(cause.key);
      for (let i = 0; i < 3; i++) await expect(c.getAd('pl_cause')).resolves.toBeNull();
      c.render(slot(), 'pl_cause', { format: 'inline_text' });
      await settle();
      expect(consoleError).toHaveBeenCalledTimes(1);
      const [text] = told(consoleError);
      expect(text).toMatch(/^Monetize SDK: /);
      for (const part of cause.says) expect(text).toContain(part);
      for (const part of cause.never ?? []) expect(text).not.toContain(part);
      expect(consoleWarn).not.toHaveBeenCalled();
      expect(eventsOf('error')).toHaveLength(4);
    });
  }

  it('tells an unknown placement once per placement: each has its own fix', async () => {
    routes.set('/functions/v1/ads', () => envelope(404, 'not_found', 'No placement with this id belongs to the app of this key.'));
    const c = keyed();
    for (const id of ['pl_a', 'pl_b', 'pl_a', 'pl_b']) await c.getAd(id);
    expect(told(consoleError).map((t) => t.match(/placement (pl_\w)/)?.[1])).toEqual(['pl_a', 'pl_b']);
  });

  it('warns once of what passes by itself: the rate limit (with its Retry-After), the service down, no answer at all', async () => {
    const answers: (() => Response | Promise<Response>)[] = [
      () => envelope(429, 'rate_limited', 'Too many requests: wait for the number of seconds in Retry-After, then retry.', { 'retry-after': '17' }),
      () => envelope(503, 'unavailable', 'The service cannot reach its database right now; retry after the seconds in Retry-After.', { 'retry-after': '5' }),
      () => Promise.reject(new TypeError('Failed to fetch')),
    ];
    const c = keyed();
    for (const answer of answers) {
      routes.set('/functions/v1/ads', answer);
      for (let i = 0; i < 3; i++) await expect(c.getAd('pl_busy')).resolves.toBeNull();
    }
    const warned = told(consoleWarn);
    expect(warned).toHaveLength(3);
    expect(warned[0]).toContain('over the rate limit: requests are refused for 17 s');
    expect(warned[1]).toContain('the service could not answer');
    expect(warned[2]).toContain(`could not reach the service at ${BASE} (Failed to fetch): check the baseUrl`);
    expect(consoleError).not.toHaveBeenCalled();
  });

  it('says nothing of a request slower than timeoutMs, or one the page destroyed', async () => {
    routes.set('/functions/v1/ads', (_url, init) => pendingUntilAborted(init));
    const c = createClient({ key: LIVE_KEY, baseUrl: BASE, timeoutMs: 500 });
    const late = c.getAd('pl_slow');
    await vi.advanceTimersByTimeAsync(500);
    await expect(late).resolves.toBeNull();
    c.render(slot(), 'pl_destroyed', { format: 'tooltip' }).destroy();
    await settle();
    expect(consoleError).not.toHaveBeenCalled();
    expect(consoleWarn).not.toHaveBeenCalled();
  });

  it('throws nothing into the page and still resolves when the console itself throws', async () => {
    consoleError.mockImplementation(() => {
      throw new Error('a console that throws');
    });
    routes.set('/functions/v1/ads', ORIGIN_REFUSED);
    const c = keyed();
    const target = slot();
    expect(() => c.render(target, 'pl_broken_console', { format: 'tooltip', fallback: 'fallback' })).not.toThrow();
    await expect(c.getAd('pl_broken_console')).resolves.toBeNull();
    await settle();
    expect(target.textContent).toBe('fallback');
    expect(consoleError).toHaveBeenCalled();
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(unhandled).toEqual([]);
  });
});

// ---------------------------------------------------------------- destroy

describe('the conversation', () => {
  const user = (content: string) => ({ role: 'user' as const, content });
  const assistant = (content: string) => ({ role: 'assistant' as const, content });

  it('POSTs the latest messages in the body with the placement, session and keywords, and never puts them in the URL', async () => {
    const c = client();
    const ad = { ...makeAd('inline_text'), relevance: 0.8, why: { matched: ['meeting notes'] } };
    serveAd(ad);
    const messages = [user('a'), assistant('b'), user('c'), assistant('d'), user('e'), assistant('f'), user('which notes app for meeting notes?')];
    await expect(c.getAd('pl_spec', { keywords: ['Notes!'], context: { messages } })).resolves.toEqual(ad);
    const [sent] = requests('/functions/v1/ads');
    expect(sent!.init.method).toBe('POST');
    expect(sent!.url.search).toBe('');
    expect(header(sent!.init, 'x-api-key')).toBe(KEY);
    expect(header(sent!.init, 'content-type')).toBe('application/json');
    expect(JSON.parse(String(sent!.init.body))).toEqual({
      placement_id: 'pl_spec',
      session_id: 'sess_spec',
      keywords: ['notes'],
      context: { messages: messages.slice(-CONTEXT_LIMITS.messages) },
    });
  });

  it('keeps what the service takes: users and assistants only, no empty message, the newest first up to 4,000 characters, the end of the one that would pass them', () => {
    const long = 'x'.repeat(3000) + 'END';
    const kept = trimContext([user('first'), { role: 'system' as 'user', content: 'be brief' }, assistant('  '), user('y'.repeat(2000)), assistant(long)]);
    expect(kept.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(kept[1]!.content).toBe(long);
    expect(kept[0]!.content).toBe('y'.repeat(4000 - long.length));
    expect(kept.reduce((n, m) => n + m.content.length, 0)).toBe(CONTEXT_LIMITS.characters);
    expect(trimContext([])).toEqual([]);
    // Never half of a character: an emoji cut at the limit goes whole.
    const emoji = trimContext([user(`${'😀'.repeat(2000)}!`)]);
    expect(emoji[0]!.content).toBe(`${'😀'.repeat(1999)}!`);
    expect(/^[\uDC00-\uDFFF]/.test(emoji[0]!.content)).toBe(false);
  });

  it('asks with a GET, as before, when no message is left to send', async () => {
    const c = client();
    serveAd(makeAd('inline_text'));
    await c.getAd('pl_spec', { context: { messages: [assistant('   ')] } });
    const [sent] = requests('/functions/v1/ads');
    expect(sent!.init.method).toBeUndefined();
    expect(sent!.url.searchParams.get('placement_id')).toBe('pl_spec');
  });

  it("gives the no-fill event the service's No-Fill-Reason", async () => {
    const c = client();
    routes.set('/functions/v1/ads', () => new Response(null, { status: 204, headers: { 'no-fill-reason': 'sensitive' } }));
    await expect(c.getAd('pl_spec', { context: { messages: [user('my knee hurts')] } })).resolves.toBeNull();
    expect(eventsOf('no-fill').map((e) => e.reason)).toEqual(['sensitive']);
  });
});

describe('"Why this ad?" and "Hide this ad"', () => {
  const formats: Format[] = ['inline_text', 'tooltip', 'sponsored_card', 'floating_video', 'sponsored_follow_up'];

  for (const format of formats) {
    it(`gives a ${format} a "Why this ad?" button outside its link, whose panel says who pays, what matched and that the conversation was not stored`, async () => {
      const c = client();
      const ad = { ...makeAd(format, { advertiser: MARKUP }), relevance: 0.7, why: { matched: ['meeting notes', MARKUP] } };
      const { root } = await renderAd(c, ad);
      const button = root.querySelector<HTMLButtonElement>('button.mz-why')!;
      expect(button.getAttribute('aria-label')).toBe('Why this ad?');
      expect(button.closest('a')).toBeNull();
      button.click();
      const panel = root.querySelector<HTMLElement>('[role="dialog"]')!;
      expect(panel.getAttribute('aria-label')).toBe('Why this ad?');
      expect(panel.textContent).toContain(`This ad is from ${MARKUP}`);
      expect(panel.textContent).toContain(`It fits what this conversation is about: meeting notes, ${MARKUP}.`);
      expect(panel.textContent).toContain('Your conversation was used to choose this ad and was not stored.');
      // Text stays text.
      expect(document.querySelector('img[src="x"]')).toBeNull();
      // The focus on Close, not on the button that hides; the panel described by its lines.
      expect(document.activeElement?.textContent).toBe('Close');
      expect(button.getAttribute('aria-expanded')).toBe('true');
      const described = panel
        .getAttribute('aria-describedby')!
        .split(' ')
        .map((id) => document.getElementById(id)?.textContent);
      expect(described).toHaveLength(3);
      expect(described.join(' ')).toContain('was not stored');
      expect(requests('/functions/v1/events')).toEqual([]);
    });
  }

  it('says the conversation was not sent when the ad was chosen without one', async () => {
    const c = client();
    const { root } = await renderAd(c, makeAd('sponsored_card'));
    root.querySelector<HTMLButtonElement>('.mz-why')!.click();
    const text = root.querySelector('[role="dialog"]')!.textContent;
    expect(text).toContain('It was chosen for this app, not for your conversation.');
    expect(text).toContain('Your conversation was not sent to choose it.');
  });

  it('closes on Escape, on Close and on a click elsewhere, giving the focus back to the button, and hides nothing', async () => {
    const c = client();
    const { root } = await renderAd(c, makeAd('tooltip'));
    const button = root.querySelector<HTMLButtonElement>('.mz-why')!;
    button.click();
    document.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape' }));
    expect(root.querySelector('[role="dialog"]')).toBeNull();
    expect(document.activeElement).toBe(button);
    button.click();
    [...root.querySelectorAll('button')].find((b) => b.textContent === 'Close')!.click();
    expect(root.querySelector('[role="dialog"]')).toBeNull();
    button.click();
    // A scroll moves it with the button; it stays open.
    window.dispatchEvent(new Event('scroll'));
    document.body.dispatchEvent(new Event('scroll'));
    expect(root.querySelector('[role="dialog"]')).not.toBeNull();
    document.body.dispatchEvent(new Event('pointerdown', { bubbles: true }));
    expect(root.querySelector('[role="dialog"]')).toBeNull();
    // A second press of the button closes its panel: never two.
    button.click();
    button.click();
    expect(root.querySelectorAll('[role="dialog"]')).toHaveLength(0);
    expect(button.getAttribute('aria-expanded')).toBe('false');
    button.click();
    expect(root.querySelectorAll('[role="dialog"]')).toHaveLength(1);
    await settle();
    expect(root.isConnected).toBe(true);
    expect(eventsOf('hidden')).toEqual([]);
    expect(requests('/functions/v1/events')).toEqual([]);
  });

  it('"Hide this ad" removes the ad, leaves a note in its room, sends one hide event at once with its token, stops counting the impression, and emits hidden', async () => {
    const c = client();
    const ad = makeAd('sponsored_card');
    const { root, target } = await renderAd(c, ad);
    root.querySelector<HTMLButtonElement>('.mz-why')!.click();
    [...root.querySelectorAll('button')].find((b) => b.textContent === 'Hide this ad')!.click();
    expect(root.isConnected).toBe(false);
    expect(target.textContent).toBe('Ad hidden');
    expect(document.activeElement).toBe(target.querySelector('[role="status"]'));
    expect(target.classList.contains('mz-slot-sponsored_card')).toBe(true);
    await settle();
    expect(eventPosts()).toEqual([[{ id: `${ad.decision_id}.hide`, type: 'hide', token: ad.token }]]);
    expect(eventsOf('hidden').map((e) => e.ad)).toEqual([ad]);
    // In view after the hide: no impression of it is watched any more.
    expect(see(root, 1)).toBe(0);
    await vi.advanceTimersByTimeAsync(3000);
    expect(postedIds()).toEqual([`${ad.decision_id}.hide`]);
  });

  it('hides an ad the app drew itself with client.hide, under the decision’s own event id, which the service counts once however often it comes', async () => {
    const c = client();
    const ad = makeAd('inline_text');
    c.hide(ad);
    c.hide(ad);
    await settle();
    expect(postedIds()).toEqual([`${ad.decision_id}.hide`, `${ad.decision_id}.hide`]);
  });

  it('closes an open panel, and leaves no listener behind, when its placement is destroyed', async () => {
    const c = client();
    serveAd(makeAd('tooltip'));
    const placement = c.render(slot(), 'pl_spec', { format: 'tooltip' });
    await settle();
    const button = document.querySelector<HTMLButtonElement>('.mz-why')!;
    button.click();
    expect(document.querySelector('[role="dialog"]')).not.toBeNull();
    const removed = vi.spyOn(document, 'removeEventListener');
    placement.destroy();
    expect(document.querySelector('[role="dialog"]')).toBeNull();
    expect(removed.mock.calls.map(([type]) => type).filter((type) => type === 'keydown' || type === 'pointerdown')).toEqual(['keydown', 'pointerdown']);
  });
});

describe('destroy', () => {
  it('before the answer arrives: nothing is drawn, nothing is watched and no event is sent', async () => {
    const ad = makeAd('sponsored_card');
    routes.set('/functions/v1/ads', (_url, init) => pendingUntilAborted(init));
    const c = client();
    const target = slot();

    const placement = c.render(target, ad.placement_id, { format: 'sponsored_card', fallback: 'fallback' });
    await settle();
    placement.destroy();
    await settle();
    await vi.advanceTimersByTimeAsync(10_000);

    expect(target.childNodes).toHaveLength(0);
    expect(placement.ad).toBeNull();
    expect(FakeIntersectionObserver.instances).toHaveLength(0);
    expect(events).toEqual([]);
    expect(eventPosts()).toHaveLength(0);
  });

  it('before the answer arrives: a late answer is not drawn and no impression is sent', async () => {
    const ad = makeAd('sponsored_card');
    let answer: (res: Response) => void = () => {};
    routes.set('/functions/v1/ads', () => new Promise<Response>((resolve) => (answer = resolve)));
    const c = client();
    const target = slot();

    const placement = c.render(target, ad.placement_id, { format: 'sponsored_card', fallback: 'fallback' });
    await settle();
    placement.destroy();
    answer(json(ad)); // a fetch that ignores the abort
    await settle();
    await vi.advanceTimersByTimeAsync(10_000);

    expect(target.childNodes).toHaveLength(0);
    expect(placement.ad).toBeNull();
    expect(FakeIntersectionObserver.instances).toHaveLength(0);
    expect(eventsOf('viewable')).toHaveLength(0);
    expect(eventsOf('error')).toHaveLength(0);
    expect(eventPosts()).toHaveLength(0);
  });
});

// ---------------------------------------------------------------- the <script> build

describe('the script build', () => {
  it('sets window.Monetize (createClient, version 1.0.0) once and warns exactly once when loaded again', async () => {
    const w = window as unknown as { Monetize?: { createClient: unknown; version: string } };
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    Reflect.deleteProperty(w, 'Monetize');
    try {
      vi.resetModules();
      await import('../src/script');
      const first = w.Monetize;
      expect(typeof first?.createClient).toBe('function');
      expect(first?.version).toBe(VERSION);
      expect(warn).not.toHaveBeenCalled();

      vi.resetModules();
      await import('../src/script');
      expect(warn).toHaveBeenCalledTimes(1);
      expect(w.Monetize).toBe(first);
      expect(w.Monetize?.createClient).toBe(first?.createClient);

      vi.resetModules();
      await import('../src/script');
      expect(warn).toHaveBeenCalledTimes(1);
      expect(typeof w.Monetize?.createClient).toBe('function');
      expect(w.Monetize?.version).toBe(VERSION);
    } finally {
      Reflect.deleteProperty(w, 'Monetize');
    }
  });
});

// ---------------------------------------------------------------- consent

describe('consent', () => {
  it('subjectId is the lowercase hex SHA-256 of the user id', async () => {
    const c = client();
    const id = await c.subjectId('user-1');
    expect(id).toBe(createHash('sha256').update('user-1').digest('hex'));
    expect(id).toMatch(/^[0-9a-f]{64}$/);
    expect(await c.subjectId('user-2')).not.toBe(id);
  });

  it('recordConsent POSTs {subject_id, purposes, policy_version} to /functions/v1/consents with the key', async () => {
    const subject = createHash('sha256').update('user-1').digest('hex');
    const consent = {
      subject_id: subject,
      purposes: ['ai_interactions'],
      policy_version: '2025-01',
      consented_at: '2025-01-02T00:00:00Z',
      recorded_at: '2025-01-02T00:00:00Z',
    };
    routes.set('/functions/v1/consents', () => json(consent, 201));
    const c = client();

    await expect(c.recordConsent('user-1', ['ai_interactions'], '2025-01')).resolves.toEqual(consent);
    const calls = requests('/functions/v1/consents');
    expect(calls).toHaveLength(1);
    const { url, init } = calls[0]!;
    expect(`${url.origin}${url.pathname}`).toBe(`${BASE}/functions/v1/consents`);
    expect(init.method).toBe('POST');
    expect(header(init, 'x-api-key')).toBe(KEY);
    expect(header(init, 'content-type')).toBe('application/json');
    expect(JSON.parse(String(init.body))).toEqual({ subject_id: subject, purposes: ['ai_interactions'], policy_version: '2025-01' });
    expect(String(init.body)).not.toContain('user-1');
  });

  it('getConsent answers null on 404', async () => {
    routes.set('/functions/v1/consents', () => json({ error: { message: 'not found' } }, 404));
    const c = client();

    await expect(c.getConsent('user-1')).resolves.toBeNull();
    const [call] = requests('/functions/v1/consents');
    expect(call!.init.method).toBe('GET');
    expect(call!.url.searchParams.get('subject_id')).toBe(createHash('sha256').update('user-1').digest('hex'));
    expect(header(call!.init, 'x-api-key')).toBe(KEY);
    expect(header(call!.init, 'x-consent-proof')).toBeNull();
  });

  describe('the consent proof', () => {
    const PROOF = `cp_${'P'.repeat(43)}`;
    const subject = createHash('sha256').update('user-1').digest('hex');
    const recorded = { subject_id: subject, purposes: ['ai_interactions'], policy_version: '2025-01', consented_at: 'x', recorded_at: 'x' };

    beforeEach(() => localStorage.clear());
    afterEach(() => localStorage.clear());

    it('is kept in this browser, per key and user, and sent with every later call for that user', async () => {
      routes.set('/functions/v1/consents', (_url, init) => (init.method === 'POST' ? json({ ...recorded, consent_proof: PROOF }) : json(recorded)));
      routes.set('/functions/v1/data', () => json({ received: 1, stored: 1, duplicates: 0 }));
      const c = client();

      const consent = await c.recordConsent('user-1', ['ai_interactions'], '2025-01');
      expect(consent.consent_proof).toBe(PROOF);
      // The first consent needs no proof; none was sent.
      expect(header(requests('/functions/v1/consents')[0]!.init, 'x-consent-proof')).toBeNull();
      expect(Object.values({ ...localStorage })).toContain(PROOF);

      await c.getConsent('user-1');
      await c.submitData('user-1', 'ai_interaction', [{ id: 'r1', data: { prompt: 'p', response: 'r' } }]);
      routes.set('/functions/v1/consents', (_url, init) =>
        init.method === 'DELETE' ? json({ subject_id: subject, withdrawn: true, deleted_records: 0 }) : json({ ...recorded, consent_proof: PROOF }),
      );
      await c.withdrawConsent('user-1');
      // Consenting again after a withdrawal needs the same proof: it was kept.
      await c.recordConsent('user-1', ['ux_sessions'], '2025-02');
      const sent = [...requests('/functions/v1/consents'), ...requests('/functions/v1/data')].slice(1).map((r) => header(r.init, 'x-consent-proof'));
      expect(sent).toEqual([PROOF, PROOF, PROOF, PROOF]);

      // Another user, or another app's key, has no proof here.
      await c.getConsent('user-2');
      const other = createClient({ key: 'pk_test_another_app', baseUrl: BASE });
      await other.getConsent('user-1');
      expect(
        requests('/functions/v1/consents')
          .slice(-2)
          .map((r) => header(r.init, 'x-consent-proof')),
      ).toEqual([null, null]);
    });

    it('can be given by the app, which keeps it itself', async () => {
      routes.set('/functions/v1/consents', () => json(recorded));
      const c = client();
      await c.getConsent('user-1', { proof: PROOF });
      expect(header(requests('/functions/v1/consents')[0]!.init, 'x-consent-proof')).toBe(PROOF);
    });

    it('works, throwing nothing, where the page may not use localStorage', async () => {
      routes.set('/functions/v1/consents', () => json({ ...recorded, consent_proof: PROOF }));
      const refusing = {
        getItem: () => {
          throw new DOMException('The operation is insecure.', 'SecurityError');
        },
        setItem: () => {
          throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
        },
      };
      const blocked = () => {
        throw new DOMException('Access is denied for this document.', 'SecurityError');
      };
      const original = Object.getOwnPropertyDescriptor(globalThis, 'localStorage');
      try {
        for (const storage of [{ value: refusing }, { get: blocked }]) {
          Object.defineProperty(globalThis, 'localStorage', { configurable: true, ...storage });
          const c = client();
          await expect(c.recordConsent('user-1', ['ai_interactions'], '2025-01')).resolves.toMatchObject({ consent_proof: PROOF });
          await expect(c.getConsent('user-1')).resolves.toMatchObject({ subject_id: subject });
          expect(header(requests('/functions/v1/consents').at(-1)!.init, 'x-consent-proof')).toBeNull();
        }
      } finally {
        if (original) Object.defineProperty(globalThis, 'localStorage', original);
      }
      expect(unhandled).toEqual([]);
    });

    it("rejects with the service's message when the proof is refused", async () => {
      routes.set('/functions/v1/consents', () =>
        json({ error: { status: 403, code: 'forbidden', message: 'This subject already has a consent with this app: send its consent proof.' } }, 403),
      );
      const c = client();
      await expect(c.recordConsent('user-1', ['ai_interactions'], '2025-01')).rejects.toThrow(/consent proof/);
    });
  });
});
