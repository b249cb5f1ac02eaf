// The baseline for scripts/bench.mjs: a bare route handler with no database, validation or
// middleware. Dynamic, like our API routes, so every request runs the handler rather than
// serving a prerendered file. The body is padded to about the size of GET /api/v1/pricing.
export const dynamic = 'force-dynamic';

const body = {
  ok: true,
  service: 'bench-baseline',
  note: 'A bare Next.js route handler, measured next to the real endpoints for comparison.',
  padding: 'x'.repeat(250),
};

export function GET(): Response {
  return Response.json({ ...body, at: Date.now() }, { headers: { 'cache-control': 'public, max-age=60' } });
}
