import Link from 'next/link';
import type { OnboardingStep } from '@/lib/publisher/onboarding';
import { cn } from '../_components/ui/cn';
import { RefreshWhileWaiting } from './refresh';

function Step({ step, n }: { step: OnboardingStep; n: number }) {
  return (
    <li data-step={step.id} data-done={step.done} className="flex gap-3 py-3">
      <span
        aria-hidden="true"
        className={cn(
          'grid size-7 shrink-0 place-items-center rounded-full border text-xs font-semibold',
          step.done ? 'border-success bg-success text-success-foreground' : 'border-input text-muted-foreground',
        )}
      >
        {step.done ? '✓' : n}
      </span>
      <div className="min-w-0">
        <p className="font-medium">
          {step.href && !step.done ? <Link href={step.href}>{step.title}</Link> : step.title}
          <span className="sr-only">{step.done ? ' (done)' : ' (to do)'}</span>
        </p>
        <p className="text-sm text-muted-foreground">{step.detail}</p>
      </div>
    </li>
  );
}

/**
 * The first-run checklist on the console's overview. While it waits for the first impression
 * the page refreshes itself, so the last step turns green without a reload; once everything is
 * done it folds into one line.
 */
export function Onboarding({ steps, complete }: { steps: OnboardingStep[]; complete: boolean }) {
  const list = (
    <ol className="divide-y" aria-label="Getting started">
      {steps.map((s, i) => (
        <Step key={s.id} step={s} n={i + 1} />
      ))}
    </ol>
  );
  if (complete) {
    return (
      <details className="mb-8 rounded-xl border bg-card px-4 py-3" data-testid="onboarding" data-complete="true">
        <summary className="cursor-pointer text-sm font-medium">
          <span className="text-success">✓</span> Setup complete: your app shows ads and your impressions are counted.
        </summary>
        {list}
      </details>
    );
  }
  const done = steps.filter((s) => s.done).length;
  return (
    <section aria-labelledby="onboarding" className="mb-8 rounded-xl border bg-card p-4 sm:p-6" data-testid="onboarding" data-complete="false">
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h2 id="onboarding">Get your first impression</h2>
        <p className="text-sm text-muted-foreground">
          {done} of {steps.length} done
        </p>
      </div>
      <div className="mt-3 h-1.5 overflow-hidden rounded-full bg-muted" aria-hidden="true">
        <div className="h-full rounded-full bg-success transition-all" style={{ width: `${(done / steps.length) * 100}%` }} />
      </div>
      {list}
      {steps[2]!.done && <RefreshWhileWaiting everyMs={5000} />}
    </section>
  );
}
