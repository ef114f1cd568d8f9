import type { ApiKey } from '../../../contract';
import { ApiError } from '../api';
import { h } from '../dom';
import { formatDateTime } from '../format';

/*
 * The inputs of docs/operator-controls.md shared by the keys and accounts pages: model
 * allow-lists (comma-separated ids or prefix* patterns, empty = every model) and expiry.
 */

export function modelsInput(value: string[] | null = null): HTMLInputElement {
  return h('input', { type: 'text', name: 'models', value: value?.join(', ') ?? '', placeholder: 'every model', autocomplete: 'off' });
}

/** Empty = every model (null); else the comma-separated entries. */
export function readModels(input: HTMLInputElement): string[] | null {
  const entries = input.value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  return entries.length === 0 ? null : entries;
}

/** A local date and time; the value sent is its UTC instant. */
export function expiresInput(value: string | null = null): HTMLInputElement {
  const local = value === null ? '' : toLocalInput(new Date(value));
  return h('input', { type: 'datetime-local', name: 'expires_at', value: local });
}

function toLocalInput(date: Date): string {
  const pad = (part: number) => String(part).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** Empty = never (null). */
export function readExpires(input: HTMLInputElement): string | null {
  if (input.value.trim() === '') return null;
  const date = new Date(input.value);
  if (Number.isNaN(date.getTime()))
    throw new ApiError(400, 'Expires must be a date and time, or empty for never.', 'invalid_value', 'expires_at');
  return date.toISOString();
}

export function graceInput(): HTMLInputElement {
  return h('input', { type: 'number', name: 'grace_seconds', min: '0', step: '1', inputmode: 'numeric', value: '0', required: true });
}

export function readGrace(input: HTMLInputElement): number {
  const value = Number(input.value);
  if (!Number.isInteger(value) || value < 0)
    throw new ApiError(400, 'The grace period is a whole number of seconds, 0 or more.', 'invalid_value', 'grace_seconds');
  return value;
}

export function modelsText(models: string[] | null): string {
  return models === null ? 'All models' : models.join(', ');
}

/** Expiry and last use, for the keys table. */
export function keyTimesText(key: ApiKey): string {
  const expiry =
    key.expires_at === null
      ? 'Never expires'
      : `${Date.parse(key.expires_at) <= Date.now() ? 'Expired' : 'Expires'} ${formatDateTime(key.expires_at)}`;
  const used = key.last_used_at === null ? 'never used' : `last used ${formatDateTime(key.last_used_at)}`;
  return `${expiry} · ${used}`;
}

/*
 * docs/operator-controls.md, "Who set a key's settings": what the operator set, the owner may
 * tighten but not loosen or clear.
 */
type Setting = keyof ApiKey['set_by'];

const SETTINGS: ReadonlyArray<[Setting, string, string]> = [
  ['rpm', 'RPM', 'lower it'],
  ['tpm', 'TPM', 'lower it'],
  ['models', 'models', 'narrow it'],
  ['expires_at', 'expiry', 'bring it earlier'],
  ['budget', 'budget', 'lower its amount for the same period'],
];

/** "Set by the operator: RPM, budget", under a key's limits; nothing when the operator set none. */
export function operatorSetNote(key: ApiKey): HTMLElement | null {
  const names = SETTINGS.filter(([setting]) => key.set_by[setting] === 'operator').map(([, name]) => name);
  return names.length === 0 ? null : h('small', { class: 'muted' }, `Set by the operator: ${names.join(', ')}`);
}

/** A limits dialog's hint, with what an owner may do to a setting the operator set. */
export function settingHint(key: ApiKey, setting: Setting, hint: string, operator: boolean): string {
  const entry = SETTINGS.find(([candidate]) => candidate === setting);
  if (operator || key.set_by[setting] !== 'operator' || !entry) return hint;
  return `${hint} Set by the operator: you may ${entry[2]}, not loosen or clear it.`.trim();
}

/** An input's value when the user changed it, else undefined: a dialog sends only what changed. */
export function ifChanged<T>(input: HTMLInputElement, read: (input: HTMLInputElement) => T): T | undefined {
  return input.value === input.defaultValue ? undefined : read(input);
}
