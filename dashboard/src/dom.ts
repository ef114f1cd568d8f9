/** A few DOM helpers: the dashboard is plain TypeScript, no framework. */

export type Child = Node | string | number | null | undefined | false | Child[];

type Listener = (event: Event) => void;
export type Props = Record<string, string | number | boolean | null | undefined | Listener>;

function apply(element: Element, props: Props | undefined): void {
  if (!props) return;
  for (const [name, value] of Object.entries(props)) {
    if (typeof value === 'function') {
      element.addEventListener(name.replace(/^on/, ''), value);
    } else if (value === true) {
      element.setAttribute(name, '');
    } else if (value !== false && value !== null && value !== undefined) {
      element.setAttribute(name, String(value));
    }
  }
}

function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(parent, child);
    else parent.appendChild(typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child);
  }
}

/** `h('button', { type: 'button', onclick: … }, 'Save')`. Attributes only; `on…` functions become listeners. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, props?: Props, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  apply(element, props);
  append(element, children);
  return element;
}

const SVG_NS = 'http://www.w3.org/2000/svg';

export function svg<K extends keyof SVGElementTagNameMap>(tag: K, props?: Props, ...children: Child[]): SVGElementTagNameMap[K] {
  const element = document.createElementNS(SVG_NS, tag);
  apply(element, props);
  append(element, children);
  return element;
}

export function replaceChildren(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

let idCounter = 0;
/** Unique ids for label/aria-describedby pairs. */
export function uid(prefix: string): string {
  idCounter += 1;
  return `${prefix}-${idCounter}`;
}

/** A labelled form field: the label is always visible (never a placeholder-only input). */
export function field(label: string, input: HTMLInputElement | HTMLSelectElement, hint?: string): HTMLDivElement {
  const id = input.id || uid('field');
  input.id = id;
  const hintElement = hint ? h('small', { class: 'hint', id: `${id}-hint` }, hint) : null;
  if (hintElement) input.setAttribute('aria-describedby', hintElement.id);
  return h('div', { class: 'field' }, h('label', { for: id }, label), input, hintElement);
}
