// The bench's settings from the environment (scripts/bench.mjs lists them all). A value that is
// not a positive number ends the run with exit status 2 before anything starts.

export const SLICE = positiveNumber('BENCH_SLICE', 2);
export const CONNECTIONS = Math.max(1, Math.round(positiveNumber('BENCH_CONNECTIONS', 10)));
export const WARMUP = positiveNumber('BENCH_WARMUP', 3);
// This 2-core machine's speed drifts by ±20% over tens of seconds (the same build measured in
// 10 s rounds read 0.73x to 1.02x of the baseline): short alternating slices see the same
// conditions on both sides, and many of them narrow the spread.
export const PAIRS = Math.max(1, Math.round(positiveNumber('BENCH_PAIRS', 30)));
// Two fresh server processes of the same build differ by more than the noise within one of
// them: ten single-round runs of pricing read 0.90x to 0.98x, while each one's interval from its
// own pairs was only about ±0.015. So each endpoint's pairs are spread over several rounds, each
// on freshly started servers, and the interval resamples rounds as well as pairs.
export const ROUNDS = Math.min(PAIRS, Math.max(1, Math.round(positiveNumber('BENCH_ROUNDS', 3))));
export const SKIP_BUILD = process.env.BENCH_SKIP_BUILD === '1';

export function positiveNumber(name, fallback) {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) {
    console.error(`${name} must be a positive number, got ${JSON.stringify(raw)}`);
    process.exit(2);
  }
  return value;
}
