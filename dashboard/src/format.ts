/** Display formats. Numbers in en-US style; times in the browser's zone with the exact value in a tooltip. */

const integer = new Intl.NumberFormat('en-US');

export function formatInteger(value: number): string {
  return integer.format(value);
}

const dollars = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 2 });
const smallDollars = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', maximumSignificantDigits: 3 });

/** Spend: cents when it is worth cents, else three significant digits ($0.0000453). */
export function formatUsd(value: number): string {
  if (value === 0) return '$0.00';
  return Math.abs(value) >= 0.01 ? dollars.format(value) : smallDollars.format(value);
}

/** Per million tokens, as the catalogue states prices: up to 4 decimals. */
export function formatPrice(value: number): string {
  return `$${value.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 4 })}`;
}

const dateTime = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short' });

export function formatDateTime(iso: string): string {
  return dateTime.format(new Date(iso));
}

export function formatCompact(value: number): string {
  return new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 }).format(value);
}
