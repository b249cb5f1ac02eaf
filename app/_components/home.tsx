import Link from 'next/link';
import { DEFAULT_PRICING, type PricingValues } from '@/lib/money/pricing/defaults';
import { pricingHighlights } from '@/lib/docs/content/site';
import { processPricing } from '@/lib/process';
import { Button } from './ui/button';

const AUDIENCES = [
  {
    title: 'Publishers',
    body: 'Put the SDK in your AI app, choose where ads may appear, and earn from every impression and from the data your users agree to sell.',
    cta: { href: '/signup', label: 'Create a publisher account' },
    more: { href: '/publishers', label: 'How publishers earn' },
  },
  {
    title: 'Advertisers',
    body: 'Reach people while they work with AI tools, in five formats made for chat and the page, at published prices per 1,000 impressions.',
    cta: { href: '/signup?as=advertiser', label: 'Create an advertiser account' },
    more: { href: '/advertisers', label: 'Formats, prices and review' },
  },
  {
    title: 'Data buyers',
    body: 'License AI-interaction data and UX sessions that the people in them consented to sell, with consent honoured after the sale.',
    cta: { href: '/data-buyers', label: 'See the datasets' },
    more: { href: '/docs/data-and-consent', label: 'How consent works' },
  },
] as const;

/** The home page's first screen: what this is, one call to action per audience, the figures that matter. */
export async function Home() {
  // The process's pricing, which `services().pricing` is too (lib/process.ts says why not through the services).
  const values = (await processPricing().values()) ?? (DEFAULT_PRICING as PricingValues);
  return (
    <div className="grid gap-14">
      <section className="mx-auto grid max-w-3xl gap-6 pt-6 text-center sm:pt-12">
        <p className="mx-auto rounded-full border px-3 py-1 text-xs font-medium text-muted-foreground">Ads and consented data for AI apps and SaaS</p>
        <h1 className="text-4xl font-bold tracking-tight text-balance sm:text-5xl">Monetize: get paid for the AI app you built</h1>
        <p className="text-lg text-pretty text-muted-foreground">
          Earn from ads shown in your app and from data your users consent to sell, every cent on one ledger, paid out monthly. Other apps and agents read your
          numbers only after you approve them.
        </p>
        <div className="flex flex-col justify-center gap-3 sm:flex-row">
          <Button asChild size="lg">
            <Link href="/signup">Start earning</Link>
          </Button>
          <Button asChild size="lg" variant="outline">
            <Link href="/docs/quickstart">Read the quickstart</Link>
          </Button>
        </div>
      </section>

      <dl className="mx-auto grid w-full max-w-4xl gap-4 sm:grid-cols-3">
        {pricingHighlights(values).map((h) => (
          <div key={h.label} className="flex flex-col gap-1 rounded-xl border bg-card p-5 text-center">
            <dt className="text-sm text-muted-foreground">{h.label}</dt>
            <dd className="order-first text-3xl font-semibold tabular-nums">{h.value}</dd>
          </div>
        ))}
      </dl>

      <section aria-labelledby="audiences" className="grid gap-6">
        <h2 id="audiences" className="text-center text-2xl">
          Who it is for
        </h2>
        <ul className="grid gap-4 md:grid-cols-3">
          {AUDIENCES.map((a) => (
            <li key={a.title} className="flex flex-col gap-3 rounded-xl border bg-card p-6">
              <h3>{a.title}</h3>
              <p className="flex-1 text-sm text-muted-foreground">{a.body}</p>
              <div className="flex flex-wrap items-center gap-3">
                <Button asChild variant={a.title === 'Publishers' ? 'default' : 'outline'}>
                  <Link href={a.cta.href}>{a.cta.label}</Link>
                </Button>
                <Link href={a.more.href} className="text-sm">
                  {a.more.label}
                </Link>
              </div>
            </li>
          ))}
        </ul>
      </section>
    </div>
  );
}
