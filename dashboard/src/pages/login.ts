import { api, expectStatus, useCsrfToken } from '../api';
import { field, h, replaceChildren } from '../dom';
import { BASE, navigate, paths, type PageContext } from '../router';
import { state } from '../state';
import { clearFormError, errorBox, showFormError, takeFlash } from '../ui/notice';

async function signIn(token: string): Promise<void> {
  const session = await expectStatus(api().session.signIn({ body: { token } }), 200);
  state.session = session;
  useCsrfToken(session.csrf_token);
}

function afterSignIn(query: URLSearchParams): void {
  const next = query.get('next');
  // Only a dashboard path: an open redirect would make the login link a phishing tool.
  navigate(next && next.startsWith(`${BASE}/`) && !next.startsWith('//') ? next : paths.home(), { replace: true });
}

/**
 * Sign-in. The operator pastes the admin token; an account owner arrives from a one-time
 * login link (`/dashboard/login#token=lt-…`, made by `model-gateway accounts login-link`),
 * which signs in at once. The token is in the fragment, so it never reaches a server log,
 * and it is wiped from the address bar before anything else.
 */
export async function loginPage({ main, query, isCurrent }: PageContext): Promise<void> {
  const linkToken = new URLSearchParams(window.location.hash.slice(1)).get('token');
  if (linkToken) window.history.replaceState(null, '', window.location.pathname + window.location.search);
  const notice = takeFlash();

  const input = h('input', { type: 'password', name: 'token', autocomplete: 'current-password', required: true, spellcheck: 'false' });
  const submit = h('button', { type: 'submit', class: 'button primary' }, 'Sign in');
  const form = h(
    'form',
    { class: 'card login-form', novalidate: true },
    field('Admin token', input, 'The GATEWAY_ADMIN_TOKEN of this gateway.'),
    submit,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    clearFormError(form);
    const token = input.value.trim();
    if (token === '') {
      showFormError(form, new Error('Enter the admin token.'));
      input.setAttribute('aria-invalid', 'true');
      input.focus();
      return;
    }
    submit.disabled = true;
    signIn(token).then(
      () => afterSignIn(query),
      (error: unknown) => {
        submit.disabled = false;
        showFormError(form, error);
      },
    );
  });

  const page = h(
    'div',
    { class: 'login' },
    h('h1', { tabindex: '-1' }, 'Sign in'),
    notice ? h('p', { class: 'notice notice-info', role: 'status' }, notice) : null,
    h('div', { class: 'login-status' }),
    form,
    h(
      'section',
      { class: 'login-help', 'aria-labelledby': 'owner-help' },
      h('h2', { id: 'owner-help' }, 'Account owners'),
      h(
        'p',
        {},
        'Sign in with the one-time login link the operator gave you. A link works once and expires after 24 hours; ask for a new one when it has.',
      ),
    ),
  );
  replaceChildren(main, page);

  if (state.session && !linkToken) {
    afterSignIn(query);
    return;
  }
  if (linkToken) {
    const status = page.querySelector('.login-status') as HTMLElement;
    replaceChildren(status, h('p', { class: 'loading', role: 'status' }, 'Signing you in…'));
    try {
      await signIn(linkToken);
      if (isCurrent()) afterSignIn(query);
    } catch (error) {
      replaceChildren(status, errorBox(error, 'This login link did not work'));
    }
    return;
  }
  input.focus();
}
