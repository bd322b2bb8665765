import { App, applyDocumentTheme, applyHostStyleVariables, type McpUiHostContext } from '@modelcontextprotocol/ext-apps';
import { type ColorMode, emailDocument, textDocument } from './email-doc.ts';
import { type CheckSummary, VIEW_META_KEY, type ViewMessage, type ViewPayload } from './payload.ts';
import './style.css';

/**
 * The captured email inside the chat (MCP Apps): the host renders this page in a sandboxed frame
 * and hands it the result of get_message, wait_for_message or expect_messages. Everything shown
 * comes from that result (`_meta["pigeonhole/view"]`): the page fetches nothing, so it works when
 * the host cannot reach the sandbox. The email itself goes in a nested frame with an empty
 * sandbox (no script, no same origin) and a policy that loads nothing remote.
 */

const WIDTHS = [
  { id: 'phone', label: 'Phone', px: 375 },
  { id: 'tablet', label: 'Tablet', px: 768 },
  { id: 'desktop', label: 'Desktop', px: 1024 },
] as const;
const MODES: { id: ColorMode; label: string; title: string }[] = [
  { id: 'light', label: 'Light', title: 'As sent, in a light client' },
  { id: 'styles', label: 'Dark: own styles', title: "The email's prefers-color-scheme: dark styles, as Apple Mail shows it" },
  { id: 'invert', label: 'Dark: inverted', title: 'Colours forced dark by inversion, as the Gmail apps and Outlook.com do' },
];

interface State {
  payload: ViewPayload | null;
  selected: number;
  width: (typeof WIDTHS)[number]['id'];
  mode: ColorMode;
}
const state: State = { payload: null, selected: 0, width: 'phone', mode: 'light' };
const root = document.getElementById('app')!;
const app = new App({ name: 'pigeonhole-email', version: '1.0.0' }, {}, { autoResize: true });

app.ontoolresult = (result) => {
  const payload = (result._meta as Record<string, unknown> | undefined)?.[VIEW_META_KEY] as ViewPayload | undefined;
  state.payload = payload ?? null;
  state.selected = 0;
  render(result.isError === true ? 'The tool answered an error: the agent has the details.' : undefined);
};
app.onhostcontextchanged = (context) => followHost(context);

function followHost(context: McpUiHostContext | undefined): void {
  if (context?.theme) applyDocumentTheme(context.theme);
  if (context?.styles?.variables) applyHostStyleVariables(context.styles.variables);
  // Pick the narrowest width that fits, once, from the host's frame.
  const width = context?.containerDimensions && 'maxWidth' in context.containerDimensions ? context.containerDimensions.maxWidth : undefined;
  if (width !== undefined && width >= 800 && state.payload === null) state.width = 'tablet';
}

function render(notice?: string): void {
  const message = state.payload?.messages[state.selected];
  root.replaceChildren();
  if (state.payload === null || message === undefined) {
    root.append(el('p', { class: 'waiting' }, notice ?? (state.payload ? 'No email matched.' : 'No email in this result.')));
    return;
  }
  if (state.payload.messages.length > 1) root.append(picker(state.payload.messages));
  root.append(header(message), toolbar(message), stage(message), facts(message));
}

function picker(messages: ViewMessage[]): HTMLElement {
  const list = el('nav', { class: 'picker', 'aria-label': `${messages.length} emails` });
  messages.forEach((m, index) => {
    const button = el('button', { type: 'button', 'aria-pressed': String(index === state.selected) }, m.subject || '(no subject)');
    button.addEventListener('click', () => {
      state.selected = index;
      render();
    });
    list.append(button);
  });
  return list;
}

function header(m: ViewMessage): HTMLElement {
  const when = new Date(m.created_at);
  return el(
    'header',
    { class: 'head' },
    el('h1', {}, m.subject || '(no subject)'),
    el(
      'dl',
      {},
      el('dt', {}, 'From'),
      el('dd', {}, m.from),
      el('dt', {}, 'To'),
      el('dd', {}, [...m.to, ...m.cc].join(', ')),
      el('dt', {}, 'Captured'),
      el('dd', {}, `${Number.isNaN(when.getTime()) ? m.created_at : when.toLocaleString()} · ${m.status} · ${m.id}`),
    ),
  );
}

function toolbar(m: ViewMessage): HTMLElement {
  const widths = segmented(
    'Preview width',
    WIDTHS.map((w) => ({ id: w.id, label: w.label, title: `${w.px} px wide` })),
    state.width,
    (id) => {
      state.width = id as State['width'];
      render();
    },
  );
  const modes = segmented('Colour mode', MODES, state.mode, (id) => {
    state.mode = id as ColorMode;
    render();
  });
  const open = el('button', { type: 'button', class: 'primary' }, 'Open in the inbox');
  open.addEventListener('click', () => void app.openLink({ url: m.inbox_url }));
  return el('div', { class: 'toolbar' }, widths, modes, open);
}

function segmented(label: string, options: { id: string; label: string; title: string }[], value: string, change: (id: string) => void): HTMLElement {
  const group = el('div', { class: 'segmented', role: 'group', 'aria-label': label });
  for (const option of options) {
    const button = el('button', { type: 'button', title: option.title, 'aria-pressed': String(option.id === value) }, option.label);
    button.addEventListener('click', () => change(option.id));
    group.append(button);
  }
  return group;
}

function stage(m: ViewMessage): HTMLElement {
  const px = WIDTHS.find((w) => w.id === state.width)!.px;
  const frame = el('iframe', {
    title: `The email: ${m.subject}`,
    sandbox: '',
    referrerpolicy: 'no-referrer',
    'data-width': state.width,
    'data-mode': state.mode,
  }) as HTMLIFrameElement;
  frame.srcdoc = m.html !== null ? emailDocument(m.html, state.mode) : textDocument(m.text ?? '', state.mode);
  frame.style.width = `${px}px`;
  // At its true width: wider than the view, the stage scrolls sideways (a scaled frame would not show the width it claims).
  return el('div', { class: `stage${state.mode === 'light' ? '' : ' dark'}` }, frame);
}

function facts(m: ViewMessage): HTMLElement {
  const section = el('section', { class: 'facts' });
  if (m.codes.length > 0)
    section.append(el('h2', {}, m.codes.length === 1 ? 'Code' : 'Codes'), el('p', { class: 'codes' }, ...m.codes.map((code) => el('code', {}, code))));
  if (m.links.length > 0) {
    const list = el('ul', { class: 'links' });
    for (const link of m.links) {
      const button = el('button', { type: 'button', class: 'link', title: link.href }, link.text.trim() || link.href);
      button.addEventListener('click', () => void app.openLink({ url: link.href }));
      list.append(el('li', {}, button, el('span', { class: 'href' }, link.href)));
    }
    section.append(el('h2', {}, `Links (${m.links.length})`), list);
  }
  if (m.check) section.append(el('h2', {}, 'Check'), checkSummary(m.check));
  return section;
}

function checkSummary(check: CheckSummary): HTMLElement {
  const items: [string, string, 'ok' | 'warn' | 'bad'][] = [];
  if (check.score !== null) items.push(['Client support', `${check.score}% (${check.market_score ?? '–'}% of opens)`, check.score >= 90 ? 'ok' : check.score >= 70 ? 'warn' : 'bad']);
  items.push(['Size', `${(check.html_bytes / 1024).toFixed(1)} KB HTML${check.gmail_clipped ? ': Gmail clips it' : ''}`, check.gmail_clipped ? 'bad' : 'ok']);
  const a11y = check.accessibility;
  items.push(['Accessibility', a11y.errors + a11y.warnings === 0 ? 'no issue' : `${a11y.errors} errors, ${a11y.warnings} warnings`, a11y.errors > 0 ? 'bad' : a11y.warnings > 0 ? 'warn' : 'ok']);
  items.push(['Dark mode', check.dark_mode.length === 0 ? 'no finding' : check.dark_mode.join(' '), check.dark_mode.length === 0 ? 'ok' : 'warn']);
  if (check.spam) items.push(['Spam', `${check.spam.score} of ${check.spam.threshold}`, check.spam.is_spam ? 'bad' : 'ok']);
  const list = el('ul', { class: 'check' }, ...items.map(([name, value, level]) => el('li', { 'data-level': level }, el('strong', {}, name), ` ${value}`)));
  if (check.warnings.length > 0) list.append(el('li', { 'data-level': 'warn' }, el('strong', {}, 'Unsupported'), ` ${check.warnings.join(', ')}`));
  return list;
}

function el(tag: string, attributes: Record<string, string>, ...children: (Node | string)[]): HTMLElement {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  node.append(...children);
  return node;
}

await app.connect();
followHost(app.getHostContext());
render();
