'use client';

import { useEffect, useRef, useState } from 'react';
import { servedCreative, type CreativeFields } from '@/lib/ads/serving/creative';
import type { PlacementFormat } from '@/lib/schemas/account';
import { drawAd } from '../../packages/sdk/src/render';
import { reserve } from '../../packages/sdk/src/styles';
import type { Ad } from '../../packages/sdk/src/types';

/**
 * A creative as the browser SDK draws it, at a phone's and a desktop's width: the SDK's own
 * renderer (packages/sdk/src/render.ts) and stylesheet, drawing the `ad` an ad response would carry
 * (lib/ads/serving/creative.ts) under a sample answer. Each width is a frame of its own, so the
 * SDK's rules that read the viewport (the floating video's width, its corner) apply as on a page
 * that wide; shown scaled down to fit. The frame is an empty document of this page's origin that
 * this component fills (the ad's texts as text, by the SDK); it loads no script and counts
 * nothing: its link opens the landing page itself, not a click of ours.
 */

const DEVICES = [
  { name: 'phone', width: 390, height: 320 },
  { name: 'desktop', width: 1280, height: 320 },
] as const;

const FRAME_CSS =
  'body{margin:0;padding:16px;font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:#111827;background:#fff}p{margin:0 0 12px;color:#374151}';
const ANSWER = 'Sure: here are three ideas to get you started, with a short plan for each and what to read next.';

function draw(frame: HTMLIFrameElement | null, format: PlacementFormat, ad: Ad) {
  const doc = frame?.contentDocument;
  if (!doc?.body) return;
  if (!doc.head.querySelector('style[data-preview]')) {
    const style = doc.createElement('style');
    style.setAttribute('data-preview', '');
    style.textContent = FRAME_CSS;
    doc.head.append(style);
  }
  const answer = doc.createElement('p');
  answer.textContent = ANSWER;
  const slot = doc.createElement('div');
  doc.body.replaceChildren(answer, slot);
  reserve(slot, format);
  drawAd(
    slot,
    ad,
    () => {},
    () => {},
  );
}

function Frame({ device, format, ad, what }: { device: (typeof DEVICES)[number]; format: PlacementFormat; ad: Ad; what: string }) {
  const wrap = useRef<HTMLDivElement>(null);
  const frame = useRef<HTMLIFrameElement>(null);
  const [scale, setScale] = useState(device.width === 390 ? 1 : 0.5);
  useEffect(() => {
    const el = wrap.current;
    if (!el) return;
    const fit = () => setScale(Math.min(1, el.clientWidth / device.width));
    fit();
    const observer = new ResizeObserver(fit);
    observer.observe(el);
    return () => observer.disconnect();
  }, [device.width]);
  useEffect(() => draw(frame.current, format, ad), [format, ad]);
  return (
    <figure className="grid min-w-0 gap-1">
      <figcaption className="text-xs text-muted-foreground">
        On a {device.name}, {device.width} px wide
      </figcaption>
      <div ref={wrap} className="w-full overflow-hidden rounded-lg border bg-white" style={{ height: Math.ceil(device.height * scale) }}>
        <iframe
          ref={frame}
          title={`${what} on a ${device.name}`}
          onLoad={() => draw(frame.current, format, ad)}
          style={{ width: device.width, height: device.height, border: 0, transform: `scale(${scale})`, transformOrigin: 'top left' }}
        />
      </div>
    </figure>
  );
}

/**
 * The previews of one creative: `landingUrl` is where its link goes here (a served ad's goes
 * through our click counter first); `what` names the frames ("Preview", "Preview of your changes").
 */
export function AdPreviews({
  format,
  creative,
  landingUrl,
  what = 'Preview',
}: {
  format: PlacementFormat;
  creative: CreativeFields;
  landingUrl: string;
  what?: string;
}) {
  const ad: Ad = {
    decision_id: 'preview',
    placement_id: 'preview',
    format,
    ad: servedCreative(format, creative),
    click_url: landingUrl || 'about:blank',
    token: '',
    expires_at: '',
    viewability: { min_visible_share: 0.5, min_seconds: 1 },
  };
  const key = JSON.stringify(ad);
  // One object per content, so that the frames redraw when the creative changes and not otherwise.
  const [stable, setStable] = useState({ key, ad });
  if (stable.key !== key) setStable({ key, ad });
  return (
    <div className="grid gap-3 sm:grid-cols-[minmax(0,2fr)_minmax(0,3fr)]" data-testid="ad-previews">
      {DEVICES.map((d) => (
        <Frame key={d.name} device={d} format={format} ad={stable.ad} what={what} />
      ))}
    </div>
  );
}
