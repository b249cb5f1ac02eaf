/**
 * What never gets an ad, whatever a campaign's hints say: health and medical conditions, mental
 * health and self-harm, sexual content, politics and elections, and a user who appears to be a
 * child (./safety.ts finds them).
 */
export const SENSITIVE_CATEGORIES = ['health', 'mental_health', 'sexual', 'politics', 'minor'] as const;
export type SensitiveCategory = (typeof SENSITIVE_CATEGORIES)[number];
