import './styles.css';
import { ApiError, api, expectStatus, useCsrfToken } from './api';
import { h, replaceChildren } from './dom';
import { accountsPage } from './pages/accounts';
import { keysPage } from './pages/keys';
import { loginPage } from './pages/login';
import { modelsPage } from './pages/models';
import { requestPage, requestsPage } from './pages/requests';
import { settingsPage } from './pages/settings';
import { usagePage } from './pages/usage';
import { BASE, match, navigate, paths, route, startRouter, type PageContext } from './router';
import { state } from './state';
import { renderShell } from './ui/layout';
import { errorBox, flash } from './ui/notice';

const root = document.getElementById('app') as HTMLElement;

function homePage(): void {
  const own = state.session?.account;
  navigate(own ? paths.keys(own.id) : paths.accounts(), { replace: true });
}

function notFoundPage({ main }: PageContext): void {
  replaceChildren(
    main,
    h('h1', { tabindex: '-1' }, 'Page not found'),
    h('p', {}, 'There is no dashboard page at this address. '),
    h('a', { href: paths.home() }, 'Go to the start page'),
  );
}

const routes = [
  route('', homePage),
  route('/login', loginPage, { public: true }),
  route('/accounts', accountsPage),
  route('/accounts/:accountId/keys', keysPage, { account: true }),
  route('/accounts/:accountId/usage', usagePage, { account: true }),
  route('/accounts/:accountId/settings', settingsPage, { account: true }),
  route('/models', modelsPage),
  route('/requests', requestsPage),
  route('/requests/:requestId', requestPage),
];

let renderCount = 0;

function render(): void {
  renderCount += 1;
  const current = renderCount;
  const { pathname, search } = window.location;
  const found = match(routes, pathname);
  if (found && !found.route.public && !state.session) {
    const next = pathname === BASE || pathname === `${BASE}/` ? '' : `?next=${encodeURIComponent(pathname + search)}`;
    navigate(paths.login() + next, { replace: true });
    return;
  }
  const main = renderShell(root, pathname);
  const context: PageContext = {
    params: found?.params ?? {},
    query: new URLSearchParams(search),
    main,
    isCurrent: () => current === renderCount,
  };
  const page = found?.route.page ?? notFoundPage;
  Promise.resolve()
    .then(() => page(context))
    .then(
      () => {
        if (!context.isCurrent()) return;
        main.removeAttribute('aria-busy');
        // On every page change, focus moves to the new page's heading (screen readers read it).
        if (current > 1) main.querySelector<HTMLElement>('h1')?.focus();
        document.title = `${main.querySelector('h1')?.textContent ?? 'Dashboard'} · Model Gateway`;
      },
      (error: unknown) => {
        if (!context.isCurrent()) return;
        main.removeAttribute('aria-busy');
        if (error instanceof ApiError && error.status === 401 && !found?.route.public) {
          state.session = null;
          useCsrfToken(null);
          flash(`${error.message}`);
          navigate(paths.login(), { replace: true });
          return;
        }
        const missing = error instanceof ApiError && error.status === 404;
        replaceChildren(
          main,
          h('h1', { tabindex: '-1' }, missing ? 'Not found' : 'Something went wrong'),
          errorBox(error, missing ? 'The gateway has nothing for this address' : 'This page could not be loaded'),
          h('p', {}, h('a', { href: paths.home() }, 'Go to the start page')),
        );
        main.querySelector<HTMLElement>('h1')?.focus();
      },
    );
}

async function start(): Promise<void> {
  try {
    const session = await expectStatus(api().session.getSession(), 200);
    state.session = session;
    useCsrfToken(session.csrf_token);
  } catch (error) {
    // 401: not signed in, the sign-in page follows. Anything else is shown there too.
    if (!(error instanceof ApiError && error.status === 401)) flash(error instanceof Error ? error.message : String(error));
  }
  startRouter(render);
}

// `start` shows its own errors (the sign-in page follows).
void start();
