import { h } from '../dom';
import { clearFormError, showFormError } from './notice';

/**
 * Modal dialogs on the native <dialog>: focus moves in and is kept there, Escape cancels,
 * and focus returns to the button that opened it.
 */
function openDialog(dialog: HTMLDialogElement, returnFocus?: () => HTMLElement | null): void {
  const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
  dialog.addEventListener('close', () => {
    dialog.remove();
    // The opener may be gone (the list was redrawn): then the caller says where focus goes.
    const target = opener?.isConnected ? opener : (returnFocus?.() ?? null);
    target?.focus();
  });
  document.body.append(dialog);
  dialog.showModal();
}

export interface ConfirmOptions {
  title: string;
  message: string;
  confirmLabel: string;
  danger?: boolean;
}

export function confirmDialog(options: ConfirmOptions): Promise<boolean> {
  return new Promise((resolve) => {
    const titleId = `dialog-title-${Date.now()}`;
    const messageId = `${titleId}-message`;
    const confirm = h(
      'button',
      { type: 'submit', value: 'confirm', class: options.danger ? 'button danger' : 'button primary' },
      options.confirmLabel,
    );
    const cancel = h('button', { type: 'submit', value: 'cancel', class: 'button', formnovalidate: true }, 'Cancel');
    const dialog = h(
      'dialog',
      { class: 'dialog', 'aria-labelledby': titleId, 'aria-describedby': messageId, role: options.danger ? 'alertdialog' : 'dialog' },
      h(
        'form',
        { method: 'dialog' },
        h('h2', { id: titleId }, options.title),
        h('p', { id: messageId }, options.message),
        h('div', { class: 'dialog-actions' }, cancel, confirm),
      ),
    );
    dialog.addEventListener('close', () => resolve(dialog.returnValue === 'confirm'));
    openDialog(dialog);
    // The safe choice has the focus: Enter does not revoke by accident.
    cancel.focus();
  });
}

export interface FormDialogOptions {
  title: string;
  description?: string;
  fields: HTMLElement[];
  submitLabel: string;
  /** Rejects to keep the dialog open with the error shown. */
  onSubmit: (form: HTMLFormElement) => Promise<void>;
  /** Where focus goes after closing when the button that opened the dialog is gone. */
  returnFocus?: () => HTMLElement | null;
}

export function formDialog(options: FormDialogOptions): void {
  const titleId = `dialog-title-${Date.now()}`;
  const submit = h('button', { type: 'submit', class: 'button primary' }, options.submitLabel);
  const cancel = h('button', { type: 'button', class: 'button' }, 'Cancel');
  const form = h(
    'form',
    { novalidate: true },
    h('h2', { id: titleId }, options.title),
    options.description ? h('p', {}, options.description) : null,
    ...options.fields,
    h('div', { class: 'dialog-actions' }, cancel, submit),
  );
  const dialog = h('dialog', { class: 'dialog', 'aria-labelledby': titleId }, form);
  cancel.addEventListener('click', () => dialog.close());
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    clearFormError(form);
    submit.disabled = true;
    options.onSubmit(form).then(
      () => dialog.close(),
      (error: unknown) => {
        submit.disabled = false;
        showFormError(form, error);
      },
    );
  });
  openDialog(dialog, options.returnFocus);
  form.querySelector<HTMLInputElement>('input')?.focus();
}
