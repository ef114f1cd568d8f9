import { ApiError } from '../api';
import { h, type Child } from '../dom';

/** An error as the user reads it: the envelope's message, and its code for a support request. */
export function errorBox(error: unknown, title = 'Something went wrong'): HTMLElement {
  const message = error instanceof Error ? error.message : String(error);
  const code = error instanceof ApiError && error.code ? error.code : null;
  const status = error instanceof ApiError && error.status > 0 ? `HTTP ${error.status}` : null;
  return h(
    'div',
    { class: 'notice notice-error', role: 'alert' },
    h('strong', {}, title),
    h('p', {}, message),
    code || status ? h('p', { class: 'notice-code' }, [status, code].filter(Boolean).join(' · ')) : null,
  );
}

/** What to show where a list is empty: say so, and what to do about it. */
export function emptyState(title: string, text: Child, action?: Child): HTMLElement {
  return h('div', { class: 'empty' }, h('p', { class: 'empty-title' }, title), h('p', {}, text), action ?? null);
}

let liveRegion: HTMLElement | null = null;

/** The polite live region: screen readers announce short confirmations ("Key blocked"). */
export function statusRegion(): HTMLElement {
  liveRegion ??= h('div', { class: 'toast', role: 'status', 'aria-live': 'polite' });
  return liveRegion;
}

let clearTimer: number | undefined;

export function announce(message: string): void {
  const region = statusRegion();
  region.textContent = message;
  region.classList.add('toast-visible');
  window.clearTimeout(clearTimer);
  clearTimer = window.setTimeout(() => region.classList.remove('toast-visible'), 4000);
}

/** A message carried over to the next page (e.g. "You are signed out"). */
let flashMessage: string | null = null;

export function flash(message: string): void {
  flashMessage = message;
}

export function takeFlash(): string | null {
  const message = flashMessage;
  flashMessage = null;
  return message;
}

/** A form's own error area: the message, and the offending field marked invalid when `param` names one. */
export function showFormError(form: HTMLFormElement, error: unknown): void {
  clearFormError(form);
  const box = errorBox(error, 'Not saved');
  box.classList.add('form-error');
  form.prepend(box);
  if (error instanceof ApiError && error.param) {
    const input = form.querySelector<HTMLInputElement>(`[name="${CSS.escape(error.param)}"]`);
    if (input) {
      input.setAttribute('aria-invalid', 'true');
      input.focus();
      return;
    }
  }
  box.setAttribute('tabindex', '-1');
  box.focus();
}

export function clearFormError(form: HTMLFormElement): void {
  form.querySelector('.form-error')?.remove();
  for (const input of form.querySelectorAll('[aria-invalid]')) input.removeAttribute('aria-invalid');
}
