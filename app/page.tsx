import { pricingFor, loadLivePricing } from '@/lib/pricing';

export const dynamic = 'force-dynamic';

export default async function Home() {
  const pricing = pricingFor(await loadLivePricing(), 'all');
  const share = Math.round(pricing.publisher_ad_revenue_share * 100);
  return (
    <>
      <h1>Earn from your AI app</h1>
      <p>
        Monetize pays publishers of AI apps and SaaS for ads shown in their apps and for data their users chose to
        share. You keep {share}% of ad revenue and {Math.round(pricing.publisher_data_revenue_share * 100)}% of data
        sales.
      </p>
      <p>
        Third-party apps and agents read a publisher&apos;s data only with their consent, through OAuth 2.0, and the
        database itself keeps each publisher&apos;s rows apart.
      </p>
    </>
  );
}
