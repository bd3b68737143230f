/**
 * Small statistics and formatting helpers for the benchmark suite: percentiles (linear interpolation
 * between closest ranks), medians, a sample summary, and number/ratio formatting for the tables.
 */

/** The p-th percentile (0–100) of `values` (need not be sorted), linear between closest ranks; NaN when empty. */
export function percentile(values, p) {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (p / 100) * (sorted.length - 1);
  const low = Math.floor(rank);
  const high = Math.ceil(rank);
  return sorted[low] + (sorted[high] - sorted[low]) * (rank - low);
}

/** The median of `values`; NaN when empty. */
export function median(values) {
  return percentile(values, 50);
}

/** count, min, p50, p95, p99, max and mean of `values`. */
export function summarize(values) {
  const sum = values.reduce((total, value) => total + value, 0);
  return {
    count: values.length,
    min: values.length ? Math.min(...values) : NaN,
    p50: percentile(values, 50),
    p95: percentile(values, 95),
    p99: percentile(values, 99),
    max: values.length ? Math.max(...values) : NaN,
    mean: values.length ? sum / values.length : NaN,
  };
}

/** A number with a precision that suits its size ("1234", "12.3", "1.23", "0.123"); "–" for NaN/null. */
export function fmt(value) {
  if (value === null || value === undefined || Number.isNaN(value)) return "–";
  if (Number.isInteger(value)) return value.toString();
  const size = Math.abs(value);
  if (size >= 100) return Math.round(value).toString();
  if (size >= 10) return value.toFixed(1);
  if (size >= 1) return value.toFixed(2);
  return value.toFixed(3);
}

/** server ÷ baseline, or NaN when either is missing or the baseline is 0. */
export function ratio(server, baseline) {
  if (!Number.isFinite(server) || !Number.isFinite(baseline) || baseline === 0) return NaN;
  return server / baseline;
}

/** A ratio as "3.21×"; "–" when unknown. */
export function fmtRatio(value) {
  return Number.isFinite(value) ? `${fmt(value)}×` : "–";
}

/** Wall-clock time in ms with sub-ms precision, comparable across processes (timeOrigin + now()). */
export function wallClockMs() {
  return performance.timeOrigin + performance.now();
}
