// The statistics of the ratios: quantiles, the bootstrap interval of an endpoint's ratio to the
// baseline, and whether an interval clears a target.

/** The q-quantile of `values`, interpolated between neighbours. */
export function quantile(values, q) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (at - lo);
}

export const median = (values) => quantile(values, 0.5);

/** Requests per second of the endpoint over the baseline's, summed over `pairs`. */
function pairsRatio(pairs) {
  let runRequests = 0;
  let runSeconds = 0;
  let baseRequests = 0;
  let baseSeconds = 0;
  for (const p of pairs) {
    runRequests += p.run.requests;
    runSeconds += p.run.durationS;
    baseRequests += p.baseline.requests;
    baseSeconds += p.baseline.durationS;
  }
  return runRequests / runSeconds / (baseRequests / baseSeconds);
}

/**
 * A 95% interval for the ratio (a percentile bootstrap in two stages): rounds resampled with
 * replacement, then pairs within each chosen round, so both the noise between slices and the
 * difference between server processes widen it. A fixed seed: the same measurements always give
 * the same interval.
 */
export function bootstrapInterval(pairs, resamples = 4000) {
  let seed = 0x9e3779b9;
  const random = () => {
    // mulberry32
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = (list) => list[Math.floor(random() * list.length)];
  const rounds = [];
  for (const p of pairs) (rounds[p.round] ??= []).push(p);
  const ratios = [];
  for (let i = 0; i < resamples; i++) {
    const sample = [];
    for (let r = 0; r < rounds.length; r++) {
      const round = pick(rounds);
      for (let j = 0; j < round.length; j++) sample.push(pick(round));
    }
    ratios.push(pairsRatio(sample));
  }
  return { low: quantile(ratios, 0.025), high: quantile(ratios, 0.975) };
}

/** Met only when the whole interval clears the target; not met when the whole of it falls short. */
export function verdict(interval, atLeast) {
  if (interval.low >= atLeast) return 'met';
  if (interval.high < atLeast) return 'NOT met';
  return 'not settled (the interval spans the target: run again with more BENCH_PAIRS or BENCH_ROUNDS)';
}
