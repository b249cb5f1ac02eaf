import { useEffect, useMemo, useRef, type CSSProperties } from 'react';
import type { MonetizeClient, RenderOptions } from './client';
import { ROOM } from './styles';
import { trimContext } from './context';
import type { Ad, ContextMessage, Format } from './types';

export interface MonetizeAdProps {
  client: MonetizeClient;
  placementId: string;
  /** The placement's format: its room is kept before the ad arrives. */
  format?: Format;
  keywords?: string[];
  /**
   * The conversation the ad will sit beside (`AdOptions.context`): a new one asks for a new ad, so
   * pass it once the answer is complete, not while it streams.
   */
  context?: { messages: ContextMessage[] };
  /** Shown when nothing fills or the request fails. */
  fallback?: RenderOptions['fallback'];
  /** For a sponsored follow-up that asks (`RenderOptions.onAsk`): ask its question in the chat. The latest one given is called. */
  onAsk?: RenderOptions['onAsk'];
  className?: string;
  style?: CSSProperties;
}

/** The room a slot keeps for a format, from the first paint: a follow-up's is its least (styles.ts). */
function room(format: Format | undefined): CSSProperties {
  if (!format || format === 'floating_video') return {};
  return format === 'sponsored_follow_up'
    ? { display: 'block', minHeight: ROOM[format], boxSizing: 'border-box' }
    : { display: 'block', height: ROOM[format], overflow: 'hidden', boxSizing: 'border-box' };
}

/**
 * `onAsk` as the SDK takes it: a function that calls the latest one the component was given (so a
 * new one asks for no new ad), or nothing when none is given, so that the link opens the ad.
 */
function useAsk(onAsk: RenderOptions['onAsk']): RenderOptions['onAsk'] {
  const latest = useRef(onAsk);
  useEffect(() => {
    latest.current = onAsk;
  });
  const asking = onAsk !== undefined;
  return useMemo(() => (asking ? (question: string) => latest.current?.(question) : undefined), [asking]);
}

/**
 * A placement in a React app: `client.render` into an element of its own, destroyed on unmount.
 * A new `placementId` (or client) asks for a new ad; re-rendering with the same props does not,
 * and an ad's impression is sent once, however often the component renders.
 */
export function MonetizeAd({ client, placementId, format, keywords, context, fallback, onAsk, className, style }: MonetizeAdProps) {
  const slot = useRef<HTMLDivElement>(null);
  const ask = useAsk(onAsk);
  const words = keywords?.join(',');
  // Compared by what is sent of it: a conversation made anew on each render with the same latest messages is the same.
  const said = context ? JSON.stringify(trimContext(context.messages)) : '';
  useEffect(() => {
    if (!slot.current) return;
    const placement = client.render(slot.current, placementId, {
      format,
      keywords: words ? words.split(',') : undefined,
      context: said ? { messages: JSON.parse(said) as ContextMessage[] } : undefined,
      fallback,
      onAsk: ask,
    });
    return () => placement.destroy();
    // `fallback` is read when it is needed; a new one alone does not ask for a new ad.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [client, placementId, format, words, said, ask]);
  // The format's room from the first paint (server rendering included), before the SDK runs.
  return <div ref={slot} className={className} style={{ ...room(format), ...style }} data-monetize-placement={placementId} />;
}

export interface MonetizeServerAdProps {
  client: MonetizeClient;
  /** The ad the app's server fetched (`findAd(answer).ad`); null renders nothing. */
  ad: Ad | null;
  fallback?: RenderOptions['fallback'];
  /** For a sponsored follow-up that asks: ask its question in the chat (`RenderOptions.onAsk`). */
  onAsk?: RenderOptions['onAsk'];
  className?: string;
  style?: CSSProperties;
}

/**
 * An ad the app's server fetched, in a React app: `client.show` into an element of its own,
 * destroyed on unmount; its impression is sent once, from this browser, however often it renders.
 */
export function MonetizeServerAd({ client, ad, fallback, onAsk, className, style }: MonetizeServerAdProps) {
  const slot = useRef<HTMLDivElement>(null);
  const ask = useAsk(onAsk);
  useEffect(() => {
    if (!slot.current || !ad) return;
    const placement = client.show(slot.current, ad, { fallback, onAsk: ask });
    return () => placement.destroy();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [client, ad?.decision_id, ask]);
  const room: CSSProperties = ad && ad.format !== 'floating_video' ? { display: 'block', minHeight: ROOM[ad.format], boxSizing: 'border-box' } : {};
  return <div ref={slot} className={className} style={{ ...room, ...style }} data-monetize-placement={ad?.placement_id} />;
}
