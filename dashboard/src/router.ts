/**
 * A tiny history router for /dashboard/…: the server answers index.html for every page path,
 * so links are real URLs (bookmarkable, open in a new tab) and in-app clicks skip the reload.
 */
export const BASE = '/dashboard';

export interface PageContext {
  params: Record<string, string>;
  query: URLSearchParams;
  /** Where the page renders. */
  main: HTMLElement;
  /** False once the user navigated away: late answers must not draw over the next page. */
  isCurrent(): boolean;
}

export interface Route {
  pattern: RegExp;
  /** Names of the pattern's groups, in order. */
  names: string[];
  page: (context: PageContext) => Promise<void> | void;
  /** Reachable without a session (the sign-in page). */
  public?: boolean;
  /** Rendered inside an account (tabs Keys / Usage / Settings). */
  account?: boolean;
}

export function route(path: string, page: Route['page'], options: { public?: boolean; account?: boolean } = {}): Route {
  const names: string[] = [];
  const source = path.replace(/:(\w+)/g, (_match, name: string) => {
    names.push(name);
    return '([^/]+)';
  });
  return { pattern: new RegExp(`^${BASE}${source}/?$`), names, page, ...options };
}

export function match(routes: Route[], pathname: string): { route: Route; params: Record<string, string> } | null {
  for (const candidate of routes) {
    const found = candidate.pattern.exec(pathname);
    if (!found) continue;
    const params: Record<string, string> = {};
    candidate.names.forEach((name, index) => {
      params[name] = decodeURIComponent(found[index + 1] ?? '');
    });
    return { route: candidate, params };
  }
  return null;
}

let onNavigate: () => void = () => undefined;

export function navigate(path: string, options: { replace?: boolean } = {}): void {
  if (options.replace) window.history.replaceState(null, '', path);
  else window.history.pushState(null, '', path);
  onNavigate();
}

/** Same-tab clicks on /dashboard links become in-app navigations; everything else is left alone. */
export function startRouter(render: () => void): void {
  onNavigate = render;
  window.addEventListener('popstate', render);
  document.addEventListener('click', (event) => {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    const link = (event.target as Element | null)?.closest('a');
    if (!link || link.target || link.hasAttribute('download') || link.origin !== window.location.origin) return;
    if (!link.pathname.startsWith(`${BASE}/`) && link.pathname !== BASE) return;
    event.preventDefault();
    navigate(link.pathname + link.search);
  });
  render();
}

export const paths = {
  home: () => `${BASE}/`,
  login: () => `${BASE}/login`,
  accounts: () => `${BASE}/accounts`,
  keys: (accountId: string) => `${BASE}/accounts/${encodeURIComponent(accountId)}/keys`,
  usage: (accountId: string) => `${BASE}/accounts/${encodeURIComponent(accountId)}/usage`,
  settings: (accountId: string) => `${BASE}/accounts/${encodeURIComponent(accountId)}/settings`,
  models: () => `${BASE}/models`,
  requests: () => `${BASE}/requests`,
  request: (id: string) => `${BASE}/requests/${encodeURIComponent(id)}`,
};
