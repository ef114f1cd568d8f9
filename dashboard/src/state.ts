import type { DashboardSession } from '../../contract';

/** The signed-in session (null: signed out). The only state shared between pages. */
export const state: { session: DashboardSession | null } = { session: null };

export const isOperator = (): boolean => state.session?.role === 'operator';

/** The account an owner is confined to; null for the operator. */
export const ownAccountId = (): string | null => state.session?.account?.id ?? null;
