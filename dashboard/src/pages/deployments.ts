import type { Deployment } from '../../../contract';
import { api, expectStatus } from '../api';
import { h, replaceChildren } from '../dom';
import { formatDateTime, formatInteger } from '../format';
import { confirmDialog } from '../ui/dialog';
import { announce, errorBox } from '../ui/notice';

/**
 * The operator's view of each model's deployments on the Models page (docs/routing.md,
 * "Operator control"): state, cooldown, the last five minutes' calls and errors, the calls in
 * flight (the answering instance's), and the switch that disables or enables a deployment.
 */

const STATE_LABELS: Record<Deployment['state'], string> = {
  healthy: 'Healthy',
  cooling_down: 'Cooling down',
  disabled: 'Disabled',
};

const STATE_BADGES: Record<Deployment['state'], string> = {
  healthy: 'badge badge-active',
  cooling_down: 'badge badge-blocked',
  disabled: 'badge badge-revoked',
};

function stateCell(deployment: Deployment): HTMLElement {
  return h(
    'td',
    { 'data-label': 'State' },
    h('span', { class: STATE_BADGES[deployment.state] }, STATE_LABELS[deployment.state]),
    deployment.cooldown_until === null
      ? null
      : [
          h('br'),
          h(
            'small',
            { class: 'muted' },
            'until ',
            h('time', { datetime: deployment.cooldown_until, title: deployment.cooldown_until }, formatDateTime(deployment.cooldown_until)),
          ),
        ],
  );
}

/** Disable (after a confirmation) or enable one deployment; `onChanged` gets the deployment as it is now. */
function switchButton(deployment: Deployment, onChanged: (deployment: Deployment) => void, slot: HTMLElement): HTMLButtonElement {
  const enable = deployment.state === 'disabled';
  const button = h(
    'button',
    {
      type: 'button',
      class: enable ? 'button small' : 'button small danger',
      'aria-label': `${enable ? 'Enable' : 'Disable'} deployment ${deployment.id}`,
    },
    enable ? 'Enable' : 'Disable',
  );
  const change = () => {
    button.disabled = true;
    expectStatus(api().deployments.updateDeployment({ params: { deploymentId: deployment.id }, body: { enabled: enable } }), 200).then(
      (updated) => {
        replaceChildren(slot);
        onChanged(updated);
        announce(`Deployment “${updated.id}” ${enable ? 'enabled' : 'disabled'}.`);
      },
      (error: unknown) => {
        button.disabled = false;
        replaceChildren(slot, errorBox(error, `Deployment “${deployment.id}” was not changed`));
      },
    );
  };
  button.addEventListener('click', () => {
    if (enable) {
      change();
      return;
    }
    void confirmDialog({
      title: `Disable “${deployment.id}”?`,
      message: `No instance sends ${deployment.model} traffic to it until it is enabled again, restarts included.`,
      confirmLabel: 'Disable deployment',
      danger: true,
    }).then((confirmed) => {
      if (confirmed) change();
    });
  });
  return button;
}

function deploymentRow(deployment: Deployment, onChanged: (deployment: Deployment) => void, slot: HTMLElement): HTMLElement {
  return h(
    'tr',
    {},
    h('td', { 'data-label': 'Model' }, h('code', {}, deployment.model)),
    h('th', { scope: 'row', 'data-label': 'Deployment' }, h('code', {}, deployment.id)),
    h('td', { 'data-label': 'Provider' }, deployment.provider, h('br'), h('small', { class: 'muted' }, deployment.upstream_model)),
    h('td', { 'data-label': 'Weight', class: 'number' }, formatInteger(deployment.weight)),
    h('td', { 'data-label': 'Priority', class: 'number' }, formatInteger(deployment.priority)),
    stateCell(deployment),
    h('td', { 'data-label': 'Requests (5 min)', class: 'number' }, formatInteger(deployment.requests_5m)),
    h('td', { 'data-label': 'Errors (5 min)', class: 'number' }, formatInteger(deployment.errors_5m)),
    h('td', { 'data-label': 'In flight', class: 'number' }, formatInteger(deployment.in_flight)),
    h('td', { 'data-label': 'Actions' }, switchButton(deployment, onChanged, slot)),
  );
}

/**
 * The Deployments section (operator only): one row per deployment, in catalogue order, those
 * of the models `shown(model)` accepts. `draw(shown)` redraws it (the page's filter).
 */
export async function deploymentsSection(): Promise<{ section: HTMLElement; draw: (shown: (model: string) => boolean) => void }> {
  let deployments = (await expectStatus(api().deployments.listDeployments(), 200)).data;
  const slot = h('div');
  const tableSlot = h('div');
  let current: (model: string) => boolean = () => true;
  const draw = (shown: (model: string) => boolean) => {
    current = shown;
    const onChanged = (updated: Deployment) => {
      deployments = deployments.map((deployment) => (deployment.id === updated.id ? updated : deployment));
      draw(current);
    };
    const rows = deployments
      .filter((deployment) => shown(deployment.model))
      .map((deployment) => deploymentRow(deployment, onChanged, slot));
    replaceChildren(
      tableSlot,
      rows.length === 0
        ? h('p', { class: 'muted' }, 'No deployment of the models shown.')
        : h(
            'div',
            { class: 'table-wrap' },
            h(
              'table',
              { class: 'table responsive' },
              h('caption', { class: 'visually-hidden' }, 'Deployments'),
              h(
                'thead',
                {},
                h(
                  'tr',
                  {},
                  ['Model', 'Deployment', 'Provider'].map((title) => h('th', { scope: 'col' }, title)),
                  ['Weight', 'Priority'].map((title) => h('th', { scope: 'col', class: 'number' }, title)),
                  h('th', { scope: 'col' }, 'State'),
                  ['Requests (5 min)', 'Errors (5 min)', 'In flight'].map((title) => h('th', { scope: 'col', class: 'number' }, title)),
                  h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'Actions')),
                ),
              ),
              h('tbody', {}, rows),
            ),
          ),
    );
  };
  const section = h(
    'section',
    { 'aria-labelledby': 'deployments-heading' },
    h('h2', { id: 'deployments-heading' }, 'Deployments'),
    h(
      'p',
      { class: 'muted' },
      'Where each model’s requests go. Requests, errors and calls in flight are this server’s; a disabled deployment gets no traffic on any server until enabled.',
    ),
    slot,
    tableSlot,
  );
  return { section, draw };
}
