import type { ReactNode } from 'react';

// The App Router requires a root layout, even in an app that only has a route handler.
export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>{children}</body>
    </html>
  );
}
