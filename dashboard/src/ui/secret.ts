import { h } from '../dom';
import { announce } from './notice';

/** Copies text; falls back to a selection copy where the Clipboard API is unavailable (plain http). */
async function copyText(text: string, source: HTMLInputElement): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    source.select();
    return document.execCommand('copy');
  }
}

export interface SecretOptions {
  title: string;
  /** What the secret is for, and that it is shown only now. */
  note: string;
  secret: string;
  label: string;
  onDone: () => void;
}

/** A secret shown once (a new API key, usage key or login link), with a copy button. */
export function secretPanel(options: SecretOptions): HTMLElement {
  const titleId = `secret-${Date.now()}`;
  const value = h('input', {
    class: 'secret-value',
    type: 'text',
    readonly: true,
    value: options.secret,
    'aria-label': options.label,
    spellcheck: 'false',
  });
  const copy = h('button', { type: 'button', class: 'button primary' }, 'Copy');
  // `copyText` resolves to false when the clipboard refuses.
  copy.addEventListener('click', () => {
    void copyText(options.secret, value).then((copied) => {
      copy.textContent = copied ? 'Copied' : 'Copy';
      announce(copied ? 'Copied to the clipboard.' : 'Copy failed: select the text and copy it by hand.');
    });
  });
  const done = h('button', { type: 'button', class: 'button' }, 'Done');
  const panel = h(
    'section',
    { class: 'secret', 'aria-labelledby': titleId, tabindex: '-1' },
    h('h2', { id: titleId }, options.title),
    h('p', {}, options.note),
    h('div', { class: 'secret-row' }, value, copy),
    h('div', { class: 'secret-actions' }, done),
  );
  done.addEventListener('click', () => {
    panel.remove();
    options.onDone();
  });
  value.addEventListener('focus', () => value.select());
  return panel;
}
