import type { Account } from '../../../contract';
import { ApiError, api, expectStatus, useCsrfToken } from '../api';
import { h, replaceChildren } from '../dom';
import { navigate, paths } from '../router';
import { isOperator, state } from '../state';
import { announce, flash, statusRegion } from './notice';

function navLink(href: string, label: string, current: boolean): HTMLElement {
  return h('a', { href, class: 'nav-link', 'aria-current': current ? 'page' : null }, label);
}

async function signOut(): Promise<void> {
  try {
    await expectStatus(api().session.signOut(), 204);
  } catch (error) {
    // Already gone (401) is signed out too; anything else is worth saying.
    if (!(error instanceof ApiError && error.status === 401)) {
      announce(error instanceof Error ? error.message : 'Sign-out failed.');
      return;
    }
  }
  state.session = null;
  useCsrfToken(null);
  flash('You are signed out.');
  navigate(paths.login());
}

/** The page frame: skip link, header with the main navigation and the user, the live region, <main>. */
export function renderShell(root: HTMLElement, pathname: string): HTMLElement {
  const session = state.session;
  const main = h('main', { id: 'main', tabindex: '-1' });
  let nav: HTMLElement | null = null;
  let user: HTMLElement | null = null;
  if (session) {
    const links: HTMLElement[] = [];
    const own = session.account;
    if (own) {
      links.push(navLink(paths.keys(own.id), 'API keys', pathname.startsWith(paths.keys(own.id))));
      links.push(navLink(paths.usage(own.id), 'Usage', pathname.startsWith(paths.usage(own.id))));
      links.push(navLink(paths.settings(own.id), 'Settings', pathname.startsWith(paths.settings(own.id))));
    } else {
      links.push(navLink(paths.accounts(), 'Accounts', pathname.startsWith(paths.accounts())));
    }
    links.push(navLink(paths.requests(), 'Requests', pathname.startsWith(paths.requests())));
    links.push(navLink(paths.models(), 'Models', pathname.startsWith(paths.models())));
    nav = h('nav', { class: 'main-nav', 'aria-label': 'Main' }, links);
    const signOutButton = h('button', { type: 'button', class: 'button subtle' }, 'Sign out');
    signOutButton.addEventListener('click', () => void signOut());
    user = h(
      'div',
      { class: 'user' },
      h('span', { class: 'user-name' }, own ? own.name : 'Operator'),
      h('span', { class: 'badge' }, own ? 'Account' : 'All accounts'),
      signOutButton,
    );
  }
  const header = h(
    'header',
    { class: 'topbar' },
    h(
      'div',
      { class: 'topbar-inner' },
      h('a', { class: 'brand', href: paths.home() }, h('span', { class: 'brand-mark', 'aria-hidden': 'true' }, '◆'), 'Model Gateway'),
      nav,
      user,
    ),
  );
  replaceChildren(root, h('a', { class: 'skip-link', href: '#main' }, 'Skip to content'), header, main, statusRegion());
  return main;
}

/** Page title, with the account it is about; operators also get a way back and the account's tabs. */
export function accountHeader(account: Account, title: string, section: 'keys' | 'usage' | 'settings'): HTMLElement {
  const parts: HTMLElement[] = [];
  if (isOperator()) {
    parts.push(
      h(
        'nav',
        { class: 'breadcrumb', 'aria-label': 'Breadcrumb' },
        h('a', { href: paths.accounts() }, 'Accounts'),
        h('span', { 'aria-hidden': 'true' }, ' / '),
        h('span', {}, account.name),
      ),
    );
  }
  parts.push(
    h(
      'div',
      { class: 'page-head' },
      h('h1', { tabindex: '-1' }, title),
      h('p', { class: 'muted' }, `${account.name} · `, h('code', {}, account.id)),
    ),
  );
  if (isOperator()) {
    parts.push(
      h(
        'nav',
        { class: 'tabs', 'aria-label': 'Account sections' },
        navLink(paths.keys(account.id), 'API keys', section === 'keys'),
        navLink(paths.usage(account.id), 'Usage', section === 'usage'),
        navLink(paths.settings(account.id), 'Settings', section === 'settings'),
      ),
    );
  }
  return h('div', { class: 'account-header' }, parts);
}

/** The account a page is about; for an owner's other-account URL this is the server's 404. */
export async function loadAccount(accountId: string): Promise<Account> {
  if (state.session?.account?.id === accountId) return state.session.account;
  return expectStatus(api().admin.getAccount({ params: { accountId } }), 200);
}

export function loading(main: HTMLElement, what: string): void {
  main.setAttribute('aria-busy', 'true');
  replaceChildren(main, h('p', { class: 'loading' }, `Loading ${what}…`));
}

export function loaded(main: HTMLElement, ...children: Parameters<typeof replaceChildren>[1][]): void {
  main.removeAttribute('aria-busy');
  replaceChildren(main, ...children);
}
