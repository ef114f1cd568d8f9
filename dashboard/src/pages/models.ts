import type { ModelEntry } from '../../../contract';
import { api, expectStatus } from '../api';
import { field, h, replaceChildren } from '../dom';
import { formatInteger, formatPrice } from '../format';
import type { PageContext } from '../router';
import { isOperator } from '../state';
import { loaded, loading } from '../ui/layout';
import { emptyState } from '../ui/notice';
import { deploymentsSection } from './deployments';

const CAPABILITY_LABELS: Record<string, string> = {
  chat: 'Chat',
  code: 'Code',
  vision: 'Vision',
  function_calling: 'Tools',
  json_mode: 'JSON mode',
  reasoning: 'Reasoning',
  embeddings: 'Embeddings',
};

function matches(model: ModelEntry, filter: string): boolean {
  const text = [
    model.id,
    model.owned_by,
    ...model.capabilities,
    ...model.capabilities.map((capability) => CAPABILITY_LABELS[capability] ?? ''),
  ]
    .join(' ')
    .toLowerCase();
  return filter.split(/\s+/).every((word) => text.includes(word));
}

/**
 * The model catalogue (GET /v1/models): capabilities, context windows, prices; for the operator,
 * each model's deployments too (pages/deployments.ts).
 */
export async function modelsPage({ main, isCurrent }: PageContext): Promise<void> {
  loading(main, 'models');
  const [catalogue, deployments] = await Promise.all([expectStatus(api().models.list(), 200), isOperator() ? deploymentsSection() : null]);
  if (!isCurrent()) return;
  const models = [...catalogue.data].sort((a, b) => a.owned_by.localeCompare(b.owned_by) || a.id.localeCompare(b.id));

  const tableSlot = h('div');
  const count = h('p', { class: 'muted', role: 'status' });
  const draw = (filter: string) => {
    const shown = models.filter((model) => matches(model, filter.trim().toLowerCase()));
    const shownIds = new Set(shown.map((model) => model.id));
    deployments?.draw((model) => shownIds.has(model));
    count.textContent = `${shown.length} of ${models.length} models`;
    if (shown.length === 0) {
      replaceChildren(
        tableSlot,
        models.length === 0
          ? emptyState('No models configured', 'Add models to the gateway’s YAML configuration.')
          : emptyState('No model matches', 'Try another name, provider or capability.'),
      );
      return;
    }
    replaceChildren(
      tableSlot,
      h(
        'div',
        { class: 'table-wrap' },
        h(
          'table',
          { class: 'table responsive' },
          h('caption', { class: 'visually-hidden' }, 'Model catalogue'),
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              h('th', { scope: 'col' }, 'Model'),
              h('th', { scope: 'col' }, 'Provider'),
              h('th', { scope: 'col' }, 'Capabilities'),
              h('th', { scope: 'col', class: 'number' }, 'Context window'),
              h('th', { scope: 'col', class: 'number' }, 'Input / 1M tokens'),
              h('th', { scope: 'col', class: 'number' }, 'Output / 1M tokens'),
            ),
          ),
          h(
            'tbody',
            {},
            shown.map((model) =>
              h(
                'tr',
                {},
                h('th', { scope: 'row', 'data-label': 'Model' }, h('code', {}, model.id)),
                h('td', { 'data-label': 'Provider' }, model.owned_by),
                h(
                  'td',
                  { 'data-label': 'Capabilities' },
                  h(
                    'ul',
                    { class: 'chips' },
                    model.capabilities.map((capability) =>
                      h('li', { class: `chip chip-${capability}` }, CAPABILITY_LABELS[capability] ?? capability),
                    ),
                  ),
                  model.dimensions ? h('small', { class: 'muted' }, `Dimensions: ${model.dimensions.join(', ')}`) : null,
                ),
                h('td', { 'data-label': 'Context window', class: 'number' }, `${formatInteger(model.context_window)} tokens`),
                h('td', { 'data-label': 'Input / 1M tokens', class: 'number' }, formatPrice(model.pricing.input_per_million)),
                h('td', { 'data-label': 'Output / 1M tokens', class: 'number' }, formatPrice(model.pricing.output_per_million)),
              ),
            ),
          ),
        ),
      ),
    );
  };

  const search = h('input', { type: 'search', name: 'filter', autocomplete: 'off' });
  search.addEventListener('input', () => draw(search.value));
  draw('');
  loaded(
    main,
    h(
      'div',
      { class: 'page-head' },
      h('h1', { tabindex: '-1' }, 'Models'),
      h('p', { class: 'muted' }, 'What the ', h('code', {}, 'model'), ' field of a request can name, with its prices in US dollars.'),
    ),
    h('div', { class: 'toolbar' }, field('Filter models', search, 'By name, provider or capability, e.g. “vision”.'), count),
    tableSlot,
    deployments?.section,
  );
}
