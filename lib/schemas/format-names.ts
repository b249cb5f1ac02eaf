import type { PlacementFormat } from './account';

/**
 * Each format as people read it. Apart from account.ts, whose schemas bring zod: client
 * components import this, and zod in a page's scripts tries `Function('')` on load, which the
 * Content-Security-Policy refuses and reports.
 */
export const FORMAT_NAMES: Record<PlacementFormat, string> = {
  floating_video: 'Floating video',
  tooltip: 'Tooltip',
  sponsored_card: 'Sponsored card',
  inline_text: 'Inline text',
  sponsored_follow_up: 'Sponsored follow-up',
};

/** A format's name for people; an unknown one as it is. */
export function formatName(format: string): string {
  return (FORMAT_NAMES as Record<string, string | undefined>)[format] ?? format;
}
