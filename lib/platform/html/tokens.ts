/**
 * The design system's colours (app/globals.css, :root and its dark twin) for pages rendered
 * outside React, which must carry their own style (the consent page: its Content-Security-Policy
 * allows no stylesheet). tokens.test.ts holds them equal to the stylesheet's.
 */
export const LIGHT = {
  background: 'oklch(1 0 0)',
  foreground: 'oklch(0.2 0.02 265)',
  card: 'oklch(1 0 0)',
  primary: 'oklch(0.47 0.2 264)',
  'primary-foreground': 'oklch(0.99 0 0)',
  muted: 'oklch(0.97 0.005 265)',
  'muted-foreground': 'oklch(0.46 0.02 265)',
  warning: 'oklch(0.6 0.13 75)',
  border: 'oklch(0.91 0.01 265)',
  input: 'oklch(0.86 0.01 265)',
  ring: 'oklch(0.55 0.2 264)',
} as const;

export const DARK: Record<keyof typeof LIGHT, string> = {
  background: 'oklch(0.16 0.01 265)',
  foreground: 'oklch(0.95 0.005 265)',
  card: 'oklch(0.2 0.015 265)',
  primary: 'oklch(0.72 0.14 264)',
  'primary-foreground': 'oklch(0.16 0.02 265)',
  muted: 'oklch(0.24 0.015 265)',
  'muted-foreground': 'oklch(0.74 0.015 265)',
  warning: 'oklch(0.8 0.13 80)',
  border: 'oklch(0.3 0.015 265)',
  input: 'oklch(0.36 0.015 265)',
  ring: 'oklch(0.72 0.14 264)',
};

export function cssVariables(tokens: Record<string, string>): string {
  return Object.entries(tokens)
    .map(([k, v]) => `--${k}:${v}`)
    .join(';');
}
