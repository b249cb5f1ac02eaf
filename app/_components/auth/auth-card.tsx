import type { ReactNode } from 'react';

/** The frame of the sign-in, sign-up and operator sign-in pages: one card, centred, with its title. */
export function AuthCard({ title, intro, children, footer }: { title: string; intro?: ReactNode; children: ReactNode; footer?: ReactNode }) {
  return (
    <div className="mx-auto w-full max-w-md py-4 sm:py-10">
      <div className="rounded-2xl border bg-card p-6 shadow-sm sm:p-8">
        <h1 className="text-2xl">{title}</h1>
        {intro && <div className="mt-2 text-sm text-muted-foreground">{intro}</div>}
        <div className="mt-6 grid gap-4">{children}</div>
      </div>
      {footer && <div className="mt-6 text-center text-sm text-muted-foreground">{footer}</div>}
    </div>
  );
}
