/**
 * A duration as OpenAI writes `x-ratelimit-reset-*` (docs/rate-limits.md: `1s`, `6m0s`), which is
 * Go's `time.Duration` string at millisecond precision: `0s`, `20ms`, `1.5s`, `6m0s`,
 * `1h0m0s`. Fractions of a millisecond are rounded up, so a client never retries early.
 */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms <= 0) return '0s';
  const total = Math.ceil(ms);
  if (total < 1_000) return `${total}ms`;
  const hours = Math.floor(total / 3_600_000);
  const minutes = Math.floor((total % 3_600_000) / 60_000);
  const seconds = Math.floor((total % 60_000) / 1_000);
  const millis = total % 1_000;
  const fraction = millis === 0 ? '' : `.${String(millis).padStart(3, '0').replace(/0+$/, '')}`;
  const secondsText = `${seconds}${fraction}s`;
  if (hours > 0) return `${hours}h${minutes}m${secondsText}`;
  if (minutes > 0) return `${minutes}m${secondsText}`;
  return secondsText;
}
