import { isAppRoute, type AppRoute, type AppRouter } from '@ts-rest/core';

/** Every route of a contract, flattened, with its key path (e.g. `admin.createKey`). */
export function listRoutes(router: AppRouter, prefix = ''): (AppRoute & { name: string })[] {
  const routes: (AppRoute & { name: string })[] = [];
  for (const [key, value] of Object.entries(router)) {
    const name = prefix ? `${prefix}.${key}` : key;
    if (isAppRoute(value)) routes.push({ ...value, name });
    else routes.push(...listRoutes(value, name));
  }
  return routes;
}
