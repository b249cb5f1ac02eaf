import { useEffect, useRef, type CSSProperties } from 'react';
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
  className?: string;
  style?: CSSProperties;
}

/**
 * A placement in a React app: `client.render` into an element of its own, destroyed on unmount.
 * A new `placementId` (or client) asks for a new ad; re-rendering with the same props does not,
 * and an ad's impression is sent once, however often the component renders.
 */
export function MonetizeAd({ client, placementId, format, keywords, context, fallback, className, style }: MonetizeAdProps) {
  const slot = useRef<HTMLDivElement>(null);
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
    });
    return () => placement.destroy();
    // `fallback` is read when it is needed; a new one alone does not ask for a new ad.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [client, placementId, format, words, said]);
  // The format's room from the first paint (server rendering included), before the SDK runs.
  const room: CSSProperties =
    format && format !== 'floating_video' ? { display: 'block', height: ROOM[format], overflow: 'hidden', boxSizing: 'border-box' } : {};
  return <div ref={slot} className={className} style={{ ...room, ...style }} data-monetize-placement={placementId} />;
}

export interface MonetizeServerAdProps {
  client: MonetizeClient;
  /** The ad the app's server fetched (`findAd(answer).ad`); null renders nothing. */
  ad: Ad | null;
  fallback?: RenderOptions['fallback'];
  className?: string;
  style?: CSSProperties;
}

/**
 * An ad the app's server fetched, in a React app: `client.show` into an element of its own,
 * destroyed on unmount; its impression is sent once, from this browser, however often it renders.
 */
export function MonetizeServerAd({ client, ad, fallback, className, style }: MonetizeServerAdProps) {
  const slot = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!slot.current || !ad) return;
    const placement = client.show(slot.current, ad, { fallback });
    return () => placement.destroy();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [client, ad?.decision_id]);
  const room: CSSProperties = ad && ad.format !== 'floating_video' ? { display: 'block', minHeight: ROOM[ad.format], boxSizing: 'border-box' } : {};
  return <div ref={slot} className={className} style={{ ...room, ...style }} data-monetize-placement={ad?.placement_id} />;
}
