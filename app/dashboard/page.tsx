import type { Metadata } from 'next';
import { getEarnings, listApiKeys, listApps } from '@/lib/account/operations';
import { consolePrincipal } from '@/lib/console/session';
import { clickThroughRate, formatCount, formatDay, formatMoment, formatPercent, formatUsd } from '@/lib/console/format';
import { services } from '@/lib/services';
import { requirePublisher } from './publisher';

export const metadata: Metadata = { title: 'Console', robots: { index: false, follow: false } };
export const dynamic = 'force-dynamic';

export default async function ConsolePage() {
  const user = await requirePublisher('/dashboard');
  const s = services();
  const principal = consolePrincipal(user, s.now());
  const [{ apps, placements }, { api_keys: keys }, earnings] = await Promise.all([
    listApps(principal, s.database, 'all'),
    listApiKeys(principal, s.database, 'all'),
    getEarnings(principal, s.database, 12),
  ]);
  return (
    <div className="console">
      <h1>Console</h1>
      <p className="muted">Signed in as {user.email}.</p>

      <section aria-labelledby="totals">
        <h2 id="totals">Earnings to date</h2>
        <dl className="totals">
          <div>
            <dt>Ad revenue tracked</dt>
            <dd data-testid="total-revenue">{formatUsd(earnings.ad_revenue_tracked_usd)}</dd>
          </div>
          <div>
            <dt>Impressions</dt>
            <dd data-testid="total-impressions">{formatCount(earnings.impressions)}</dd>
          </div>
          <div>
            <dt>Clicks</dt>
            <dd data-testid="total-clicks">{formatCount(earnings.clicks)}</dd>
          </div>
          <div>
            <dt>Paid out</dt>
            <dd>{formatUsd(earnings.payouts_paid_usd)}</dd>
          </div>
          <div>
            <dt>Pending payout</dt>
            <dd>{formatUsd(earnings.payouts_pending_usd)}</dd>
          </div>
        </dl>
      </section>

      <section aria-labelledby="apps">
        <h2 id="apps">Apps</h2>
        {apps.length === 0 && <p>No apps yet.</p>}
        {apps.map((app) => {
          const own = placements.filter((p) => p.app_id === app.id);
          const ownKeys = keys.filter((k) => k.app_id === app.id);
          return (
            <article key={app.id} className="card" aria-labelledby={`app-${app.id}`}>
              <h3 id={`app-${app.id}`}>{app.name}</h3>
              <p className="muted">
                <code>{app.slug}</code> · created {formatDay(app.created_at)}
                {app.category.length > 0 && <> · {app.category.join(', ')}</>}
              </p>
              {app.description && <p>{app.description}</p>}
              <h4>Placements</h4>
              {own.length === 0 ? (
                <p>No placements.</p>
              ) : (
                <div className="table-scroll" tabIndex={0} role="region" aria-label={`Placements of ${app.name}`}>
                  <table>
                    <thead>
                      <tr>
                        <th scope="col">Name</th>
                        <th scope="col">Format</th>
                        <th scope="col">Status</th>
                        <th scope="col" className="num">Impressions</th>
                        <th scope="col" className="num">Clicks</th>
                        <th scope="col" className="num">CTR</th>
                        <th scope="col" className="num">Revenue</th>
                        <th scope="col" className="num">Fill rate</th>
                        <th scope="col" className="num">RPM</th>
                      </tr>
                    </thead>
                    <tbody>
                      {own.map((p) => (
                        <tr key={p.id}>
                          <th scope="row">{p.name}</th>
                          <td>{p.format}</td>
                          <td>{p.status}</td>
                          <td className="num">{formatCount(p.impressions)}</td>
                          <td className="num">{formatCount(p.clicks)}</td>
                          <td className="num">{formatPercent(clickThroughRate(p.clicks, p.impressions))}</td>
                          <td className="num">{formatUsd(p.revenue_usd)}</td>
                          <td className="num">{formatPercent(p.fill_rate)}</td>
                          <td className="num">{formatUsd(p.rpm_usd)}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
              )}
              <h4>API keys</h4>
              {ownKeys.length === 0 ? (
                <p>No keys.</p>
              ) : (
                <div className="table-scroll" tabIndex={0} role="region" aria-label={`API keys of ${app.name}`}>
                  <table>
                    <thead>
                      <tr>
                        <th scope="col">Name</th>
                        <th scope="col">Key</th>
                        <th scope="col">Environment</th>
                        <th scope="col">Status</th>
                        <th scope="col">Created</th>
                        <th scope="col">Last used</th>
                      </tr>
                    </thead>
                    <tbody>
                      {ownKeys.map((k) => (
                        <tr key={k.id}>
                          <th scope="row">{k.name}</th>
                          <td>
                            <code>{k.masked_key}</code>
                          </td>
                          <td>{k.environment}</td>
                          <td>{k.status}</td>
                          <td>{formatDay(k.created_at)}</td>
                          <td>{formatMoment(k.last_used_at)}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
              )}
            </article>
          );
        })}
      </section>

      <section aria-labelledby="payouts">
        <h2 id="payouts">Payouts</h2>
        {earnings.payouts.length === 0 ? (
          <p>No payouts yet.</p>
        ) : (
          <div className="table-scroll" tabIndex={0} role="region" aria-label="Payouts">
            <table>
              <thead>
                <tr>
                  <th scope="col">Period</th>
                  <th scope="col" className="num">Amount</th>
                  <th scope="col">Status</th>
                  <th scope="col">Requested</th>
                  <th scope="col">Paid</th>
                </tr>
              </thead>
              <tbody>
                {earnings.payouts.map((p) => (
                  <tr key={p.period}>
                    <th scope="row">{p.period}</th>
                    <td className="num">{formatUsd(p.amount_usd)}</td>
                    <td>{p.status}</td>
                    <td>{formatDay(p.requested_at)}</td>
                    <td>{p.paid_at ? formatDay(p.paid_at) : '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </div>
  );
}
