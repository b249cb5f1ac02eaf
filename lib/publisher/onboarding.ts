/**
 * The console's first-run checklist: the five steps from a new account to a first counted
 * impression, each done or not from what the account already has (nothing is stored for it).
 * Pure: the overview page passes what it read.
 */

export interface OnboardingInput {
  apps: { id: string; name: string }[];
  placements: { app_id: string; status: string; impressions: number }[];
  keys: { app_id: string; status: string; last_used_at: string | null }[];
  /** All impressions counted for the account, archived placements included. */
  impressions: number;
}

export type StepId = 'app' | 'placement' | 'key' | 'snippet' | 'impression';

export interface OnboardingStep {
  id: StepId;
  title: string;
  done: boolean;
  /** What to do next, or what was done. */
  detail: string;
  /** Where to do it (absent when there is nothing to click). */
  href?: string;
}

export function onboardingSteps(input: OnboardingInput): { steps: OnboardingStep[]; complete: boolean } {
  const app = input.apps[0];
  const appPage = app ? `/dashboard/apps/${app.id}` : undefined;
  const live = input.placements.filter((p) => p.status !== 'archived');
  const activeKeys = input.keys.filter((k) => k.status === 'active');
  const used = input.keys.some((k) => k.last_used_at !== null);
  const seen = input.impressions > 0 || input.placements.some((p) => p.impressions > 0);
  const steps: OnboardingStep[] = [
    {
      id: 'app',
      title: 'Create an app',
      done: input.apps.length > 0,
      detail: app ? `${app.name} is ready.` : 'Name the app you will show ads in, and the web origins its pages are served from.',
      href: app ? appPage : '#new-app',
    },
    {
      id: 'placement',
      title: 'Add a placement',
      done: live.length > 0,
      detail: live.length > 0 ? 'A placement is a spot in your app where an ad may appear.' : 'Pick where an ad may appear and its format.',
      href: appPage && `${appPage}#placements`,
    },
    {
      id: 'key',
      title: 'Create a publishable key',
      done: activeKeys.length > 0 || used,
      detail: 'The key your pages send with each ad request. It is shown once: the snippet is filled in with it then.',
      href: appPage && `${appPage}#keys`,
    },
    {
      id: 'snippet',
      title: 'Paste the snippet into your page',
      done: used,
      detail: used
        ? 'Your page has asked for an ad.'
        : 'Copy the ready-made script tag (or React component) and add your page’s origin to the app’s allowed origins.',
      href: appPage && `${appPage}#snippets`,
    },
    {
      id: 'impression',
      title: 'See your first impression',
      done: seen,
      detail: seen ? 'Your first impression is counted. You are earning.' : 'This turns green by itself a few seconds after an ad on your page has been seen.',
    },
  ];
  // A later step done means the earlier ones were (a key used is a key made, an impression a snippet pasted).
  for (let i = steps.length - 2; i >= 0; i--) if (steps[i + 1]!.done) steps[i]!.done = true;
  return { steps, complete: steps.every((s) => s.done) };
}
