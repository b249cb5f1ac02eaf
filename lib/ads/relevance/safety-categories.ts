/**
 * What never gets an ad, whatever a campaign's hints say: health and medical conditions, mental
 * health and self-harm, sexual content, politics and elections, and a user who appears to be a
 * child (./safety.ts finds them).
 */
export const SENSITIVE_CATEGORIES = ['health', 'mental_health', 'sexual', 'politics', 'minor'] as const;
export type SensitiveCategory = (typeof SENSITIVE_CATEGORIES)[number];

/** Each category in words, as the consoles say it ("This conversation is about …"). */
export const SENSITIVE_CATEGORY_NAMES: Record<SensitiveCategory, string> = {
  health: 'health or a medical matter',
  mental_health: 'mental health or self-harm',
  sexual: 'sexual matters',
  politics: 'politics or an election',
  minor: 'a user who seems to be under 18',
};
