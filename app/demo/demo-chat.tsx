'use client';

import Link from 'next/link';
import { Fragment, useEffect, useMemo, useRef, useState, type CSSProperties, type FormEvent } from 'react';
import { createClient, findAd, type Ad, type MonetizeEvent } from '../../packages/sdk/src/index';
import { MonetizeAd, MonetizeServerAd } from '../../packages/sdk/src/react';
import type { DemoFormat } from '@/lib/demo/page';
import { answerTo, OPENING } from '@/lib/demo/answers';
import { Button } from '../_components/ui/button';
import { Card, CardDescription, CardTitle } from '../_components/ui/card';
import { Input, Label } from '../_components/ui/input';
import { cn } from '../_components/ui/cn';

interface Message {
  role: 'user' | 'assistant';
  text: string;
  /**
   * An answer from the chat's server route (/api/demo/chat): `ad` is the ad its server asked for
   * beside it, read from the answer's last chunk (`findAd`), or null; undefined while it streams.
   * The opening answer was not asked for: the page asks for its ad itself. `followUp`: the
   * sponsored follow-up its server asked for too (the answer's very last chunk), or null.
   */
  server?: { ad?: Ad | null; followUp?: Ad | null };
}

/** The ads at the end of a streamed answer (one per `appendAd`, the follow-up last), and the answer without them. */
function adsOf(streamed: string): { text: string; ad: Ad | null; followUp: Ad | null } {
  const last = findAd(streamed);
  const first = findAd(last.text);
  const ads = [first.ad, last.ad].filter((a): a is Ad => a !== null);
  return {
    text: first.text,
    ad: ads.find((a) => a.format !== 'sponsored_follow_up') ?? null,
    followUp: ads.find((a) => a.format === 'sponsored_follow_up') ?? null,
  };
}

/** Where the ad's markdown begins in a streamed answer: hidden while it arrives, then read by `findAd`. */
const AD_MARKDOWN = '\n\n---\n\n';

/** The conversation up to a message, as the ad beside it is asked with it (AdOptions.context). */
const contextOf = (messages: Message[], upTo: number) => ({ messages: messages.slice(0, upTo + 1).map((m) => ({ role: m.role, content: m.text })) });

/** The floating video: not there yet, on the screen, or not coming (no fill, an error, or closed). */
type Floating = 'pending' | 'shown' | 'gone';

/**
 * The ads in the site's colours: the SDK reads these custom properties (packages/sdk/src/styles.ts).
 *
 * The room the floating video takes at the bottom of the window (the SDK fixes it there, 320 px
 * wide at most and 60% of a narrow window, its video 16:9 above its text), from its top to the
 * window's bottom edge: `--float-reserve` before it arrives, from the SDK's sizes (video, three lines of text, padding,
 * border, 16 px from the edge), below `lg` only, where the chat runs under it (from `lg` on the
 * chat is a column left of it); `--float-measured` once it is there (0 when it is beside the chat's
 * input). The input stays above the larger of the two, so the video never covers it and nothing
 * moves when the video arrives. Closed or not coming, the video takes no room.
 */
const ROOM = [
  '[--mz-bg:var(--card)] [--mz-fg:var(--card-foreground)] [--mz-muted:var(--muted-foreground)] [--mz-accent:var(--primary)] [--mz-border:var(--border)] [--mz-radius:calc(var(--radius)_+_4px)]',
  '[--float-reserve:0px] max-lg:[--float-reserve:calc(min(320px,_60vw)_*_9_/_16_+_6.5rem)] data-[floating=gone]:[--float-reserve:0px]',
  '[--float-room:max(var(--float-reserve),_var(--float-measured,_0px))]',
].join(' ');

export function DemoChat({ apiKey, placements }: { apiKey: string; placements: Record<DemoFormat, string> }) {
  const client = useMemo(() => createClient({ key: apiKey }), [apiKey]);
  const [events, setEvents] = useState<string[]>([]);
  const [messages, setMessages] = useState<Message[]>([
    { role: 'user', text: OPENING.question },
    { role: 'assistant', text: OPENING.answer },
  ]);
  const [draft, setDraft] = useState('');
  const [busy, setBusy] = useState(false);
  const [floating, setFloating] = useState<Floating>('pending');
  const [measured, setMeasured] = useState(0);
  const form = useRef<HTMLFormElement>(null);
  const floatSlot = useRef<HTMLDivElement>(null);
  const eventList = useRef<HTMLOListElement>(null);
  const lastMessage = useRef<HTMLLIElement>(null);
  const followUpSlot = useRef<HTMLLIElement>(null);

  useEffect(
    () =>
      client.on((e: MonetizeEvent) => {
        setEvents((list) => [
          ...list.slice(-19),
          `${e.type}${e.ad ? `: ${e.ad.format} from ${e.ad.ad.advertiser}` : e.placementId ? `: ${e.placementId}` : ''}`,
        ]);
        // No video is coming: its room is given back.
        if (e.placementId === placements.floating_video && (e.type === 'no-fill' || e.type === 'error') && !floatSlot.current?.querySelector('.mz-float')) {
          setFloating('gone');
        }
      }),
    [client, placements.floating_video],
  );

  // The floating video's room, measured: when it arrives, changes size, is closed, or the window changes.
  useEffect(() => {
    const slot = floatSlot.current;
    const input = form.current;
    if (!slot || !input) return;
    let panel: HTMLElement | null = null;
    const measure = () => {
      const found = slot.querySelector<HTMLElement>('.mz-float');
      if (found !== panel) {
        if (panel) sizes.unobserve(panel);
        if (found) sizes.observe(found);
        setFloating(found ? 'shown' : panel ? 'gone' : 'pending');
        panel = found;
      }
      // The page ends above the video, footer included (the layout's, after this component): scrolled
      // to the end, nothing is left under it.
      document.body.style.paddingBottom = panel ? `${Math.ceil(window.innerHeight - panel.getBoundingClientRect().top)}px` : '';
      if (!panel) return setMeasured(0);
      const video = panel.getBoundingClientRect();
      const box = input.getBoundingClientRect();
      const beside = video.left >= box.right || video.right <= box.left;
      setMeasured(beside ? 0 : Math.ceil(window.innerHeight - video.top));
    };
    const sizes = new ResizeObserver(measure);
    const children = new MutationObserver(measure);
    children.observe(slot, { childList: true, subtree: true });
    window.addEventListener('resize', measure);
    measure();
    return () => {
      children.disconnect();
      sizes.disconnect();
      window.removeEventListener('resize', measure);
      document.body.style.paddingBottom = '';
    };
  }, []);

  // The newest event in view in its list; the newest answer in view on the page, above the input.
  useEffect(() => {
    eventList.current?.scrollTo({ top: eventList.current.scrollHeight });
  }, [events]);
  useEffect(() => {
    if (messages.length > 2) lastMessage.current?.scrollIntoView({ block: 'nearest' });
  }, [messages.length]);
  // The follow-up, once it arrives under the newest answer, in view too: above the input and the video.
  const followUpShown = messages[messages.length - 1]?.server?.followUp?.decision_id;
  useEffect(() => {
    if (followUpShown) followUpSlot.current?.scrollIntoView({ block: 'nearest' });
  }, [followUpShown]);

  /** Puts `change` into the newest message (the answer being streamed). */
  const updateAnswer = (change: Partial<Message>) => setMessages((list) => [...list.slice(0, -1), { ...list[list.length - 1]!, ...change }]);

  /** Asks the chat's server: the answer streams in, and the ads its server asked for come last. */
  async function ask(event: FormEvent) {
    event.preventDefault();
    const question = draft.trim();
    if (!question || busy) return;
    setDraft('');
    await send(question);
  }

  async function send(question: string) {
    if (busy) return;
    const conversation = [...messages, { role: 'user' as const, text: question }];
    setMessages([...conversation, { role: 'assistant', text: '', server: {} }]);
    setBusy(true);
    let text = '';
    try {
      const res = await fetch('/api/demo/chat', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ messages: conversation.map((m) => ({ role: m.role, content: m.text })) }),
      });
      if (!res.ok || !res.body) throw new Error(`the chat answered ${res.status}`);
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
        text += chunk.value;
        updateAnswer({ text: text.split(AD_MARKDOWN)[0]! });
      }
      const found = adsOf(text);
      updateAnswer({ text: found.text, server: { ad: found.ad, followUp: found.followUp } });
    } catch {
      // The chat's server cannot be reached: the page answers by itself, without an ad.
      updateAnswer({ text: answerTo(question, conversation.filter((m) => m.role === 'user').length - 1), server: { ad: null } });
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className={ROOM} data-floating={floating} style={{ '--float-measured': `${measured}px` } as CSSProperties}>
      <div className="grid grid-cols-1 items-start gap-6 lg:grid-cols-[minmax(0,1fr)_20rem]">
        <Card aria-label="Chat with Quizly" className="flex min-w-0 flex-col p-0 sm:p-0">
          <div className="flex items-center gap-3 border-b px-4 py-3">
            <span aria-hidden="true" className="grid size-9 shrink-0 place-items-center rounded-full bg-primary font-semibold text-primary-foreground">
              Q
            </span>
            <div className="min-w-0">
              <p className="font-semibold leading-tight">Quizly</p>
              <p className="text-sm text-muted-foreground">AI quiz helper · canned answers</p>
            </div>
            {/* A new conversation: the next ads are chosen for it alone. */}
            <Button type="button" variant="outline" size="sm" className="ml-auto shrink-0" onClick={() => setMessages([])}>
              New chat
            </Button>
          </div>
          {messages.length === 0 && <p className="p-4 text-muted-foreground">A new conversation: ask Quizly for a quiz on anything.</p>}
          <ol className="flex min-w-0 flex-col gap-3 p-4 empty:hidden">
            {messages.map((m, i) => (
              // `.demo-assistant`: e2e/sdk-demo.spec.ts counts the answers by it.
              <Fragment key={i}>
                <li
                  ref={i === messages.length - 1 ? lastMessage : undefined}
                  className={cn(
                    'demo-message min-w-0 max-w-[min(46rem,100%)] scroll-mt-24 scroll-mb-[calc(var(--float-room)_+_6rem)] rounded-2xl px-4 py-2.5',
                    m.role === 'user'
                      ? 'demo-user max-w-[min(36rem,85%)] self-end rounded-br-md bg-primary text-primary-foreground'
                      : 'demo-assistant self-start rounded-bl-md border bg-muted',
                  )}
                >
                  <p>{m.text}</p>
                  {m.server
                    ? m.server.ad && <MonetizeServerAd client={client} ad={m.server.ad} className="mt-1.5 text-sm" />
                    : m.role === 'assistant' && (
                        <MonetizeAd
                          client={client}
                          placementId={placements.inline_text}
                          format="inline_text"
                          keywords={['quiz', 'learning']}
                          context={contextOf(messages, i)}
                          className="mt-1.5 text-sm"
                        />
                      )}
                </li>
                {/* The sponsored follow-up under the newest answer: a click asks it here, or opens the advertiser's page, as its creative says. */}
                {i === messages.length - 1 && m.server?.followUp && (
                  <li
                    ref={followUpSlot}
                    className="demo-follow-up min-w-0 max-w-[min(46rem,100%)] scroll-mb-[calc(var(--float-room)_+_6rem)] self-start text-sm"
                  >
                    <MonetizeServerAd client={client} ad={m.server.followUp} onAsk={(q) => void send(q)} />
                  </li>
                )}
              </Fragment>
            ))}
          </ol>
          {/* Sticky: in view while the chat is, above the floating video's room. */}
          <form
            ref={form}
            onSubmit={ask}
            className="sticky bottom-[calc(var(--float-room)_+_0.75rem)] z-10 mt-auto flex gap-2 rounded-b-xl border-t bg-card p-3 max-lg:shadow-[0_-8px_16px_-12px_rgb(0_0_0/0.25)] sm:px-4"
          >
            <Label htmlFor="demo-question" className="sr-only">
              Ask Quizly
            </Label>
            <Input id="demo-question" value={draft} onChange={(e) => setDraft(e.target.value)} placeholder="Make me a quiz about…" autoComplete="off" />
            <Button type="submit" disabled={busy}>
              Send
            </Button>
          </form>
        </Card>

        <Card aria-label="What the SDK did" className="grid min-w-0 gap-3 lg:sticky lg:top-24 lg:row-span-2 lg:col-start-2">
          <div className="grid gap-1">
            <CardTitle>What the SDK did</CardTitle>
            <CardDescription>
              The events of <code>client.on()</code>, newest last.
            </CardDescription>
          </div>
          <ol
            ref={eventList}
            aria-live="polite"
            aria-label="SDK events"
            data-testid="sdk-events"
            // Scrolls: the keyboard reaches it.
            tabIndex={0}
            className="h-42 list-decimal overflow-y-auto rounded-lg border bg-muted py-2 pr-3 pl-9 font-mono text-xs leading-5 text-muted-foreground [overflow-wrap:anywhere] marker:text-muted-foreground"
          >
            {events.map((e, i) => (
              <li key={i}>{e}</li>
            ))}
          </ol>
        </Card>

        <section aria-label="More from Quizly" className="grid min-w-0 gap-3 lg:col-start-1">
          <h2>More from Quizly</h2>
          <p className="max-w-2xl">
            Quizly turns any document into quizzes, flashcards and short lessons. Teachers share them with a class; students practise before exams.
          </p>
          <p className="max-w-2xl text-muted-foreground">
            Quizly&apos;s answers come from its server, which asks for the ad beside each one, and a sponsored follow-up question, with the app&apos;s server
            key and streams them after the answer&apos;s last word (
            <Link href="/docs/server-side" className="underline">
              server-side integration
            </Link>
            ).
          </p>
          <p className="max-w-2xl text-muted-foreground">
            Scroll on: the sponsored card below counts as seen only once half of it has been in view for a whole second.
          </p>
          <div className="h-[110vh]" aria-hidden="true" />
          <MonetizeAd
            client={client}
            placementId={placements.sponsored_card}
            format="sponsored_card"
            keywords={['learning']}
            fallback={() => {
              const note = document.createElement('p');
              note.className = 'flex h-full items-center rounded-xl border border-dashed px-4 text-muted-foreground';
              note.textContent = 'Quizly Pro: unlimited quizzes for your whole class.';
              return note;
            }}
            className="w-full max-w-xl max-sm:text-sm max-sm:leading-snug"
          />
          <div className="h-[110vh]" aria-hidden="true" />
        </section>
      </div>

      <div ref={floatSlot}>
        <MonetizeAd client={client} placementId={placements.floating_video} format="floating_video" />
      </div>
    </div>
  );
}
