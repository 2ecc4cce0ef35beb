/**
 * rdskit in JupyterLab: a status bar item, a side panel (datasets, their runs and live
 * status, credits, usage history, tracking agents and their unread alerts, chats),
 * insert-code buttons, palette commands, a launcher card, and keyboard help for the
 * answer view's citation cards.
 *
 * Both follow the active notebook: they read GET <base>/rdskit/lab/summary?kernel=<id>
 * (rdskit.jupyter.lab_api: Jupyter server auth; the view of the client that notebook's
 * kernel announced, e.g. its embedded sandbox, else the server gateway's, labelled so;
 * every read goes through the gateway's shared request bucket, reused for `next_poll`
 * seconds). Everything the service wrote is rendered with textContent, never as HTML,
 * except the ask box's answer: its markdown goes through JupyterLab's own markdown
 * renderer with the sanitizer on (untrusted), then is made inert once more (renderAnswer).
 */
import {
  ILabShell,
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import { ICommandPalette, InputDialog } from '@jupyterlab/apputils';
import { ILauncher } from '@jupyterlab/launcher';
import { INotebookTracker, NotebookActions, NotebookPanel } from '@jupyterlab/notebook';
import { IRenderMimeRegistry, renderMarkdown } from '@jupyterlab/rendermime';
import { ServerConnection } from '@jupyterlab/services';
import { IStatusBar } from '@jupyterlab/statusbar';
import { LabIcon } from '@jupyterlab/ui-components';
import { Widget } from '@lumino/widgets';

/** One icon for the side tab, the launcher card and the palette; jp-icon3 follows the theme. */
const ICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 24 24">
<g class="jp-icon3" fill="#616161">
<path d="M4 3h12a4 4 0 0 1 4 4v6a4 4 0 0 1-4 4h-5l-5 4v-4H4a2 2 0 0 1-2-2V5a2 2 0 0 1 2-2zm0 2v10h4v2l2.6-2H16a2 2 0 0 0 2-2V7a2 2 0 0 0-2-2H4z"/>
<rect x="6" y="10" width="2" height="3"/><rect x="9.5" y="8" width="2" height="5"/><rect x="13" y="6.5" width="2" height="6.5"/>
</g></svg>`;
const rdsIcon = new LabIcon({ name: 'jupyterlab-rdskit:icon', svgstr: ICON_SVG });

interface IRun {
  id: string;
  status: string;
  share: number | null;
  mentions: string;
}
interface IDataset {
  id: string;
  name: string;
  runs: IRun[];
}
interface IAlert {
  id: string;
  at: number | null;
  preview: string;
  new_mentions: number | null;
  chat_id: string | null;
}
interface IAgent {
  id: string;
  name: string;
  paused: boolean;
  alerts: IAlert[];
  more: boolean;
}
interface IChat {
  id: string;
  title: string | null;
  datasets: string[];
  last_activity: number | null;
}
interface IUsageDay {
  day: string;
  credits: string;
  usd: string;
  no_credits: number;
  by: { category: string; credits: string }[];
}
/** The active notebook's kernel budget (null: no notebook), as its kernel announced it. */
interface IKernelBudget {
  set: boolean;
  announced: boolean;
  short: string;
  text: string;
}
interface IStale {
  status: number;
  reason: string;
  fix: string;
  retry_after: number;
  since: number;
}
interface ICitation {
  citation: number;
  source: string;
  id: string;
  url: string | null;
  author: string | null;
  title: string | null;
  excerpt: string;
}
interface IAskResult {
  chat_id: string;
  message_id: string;
  status: string | null;
  text: string;
  markdown: string;
  citations: ICitation[];
  cell: string;
  asked_in: 'server' | 'kernel';
}
/** The ask's request body (rdskit.jupyter.panel_ask.parse_request). */
interface IAskRequest {
  question: string;
  datasets: string[];
  chat_id: string | null;
  kernel: string | null;
}
interface ISummary {
  stale: IStale | null;
  read_at?: number;
  viewing: { scope: 'notebook' | 'server'; label: string; note: string | null };
  connected: { mode: string; upstream: string };
  account: {
    id: string | null;
    email: string | null;
    team: string | null;
    plan: string | null;
    credits_left: string | null;
  } | null;
  datasets: IDataset[];
  runs_in_flight: number;
  tracking_agents: number;
  agents: IAgent[];
  chats: { items: IChat[]; source: string };
  usage: { days: IUsageDay[]; rows: number; more: boolean };
  kernel_budget: IKernelBudget | null;
  rate_limit: number;
  queued: number;
  next_poll: number;
}

const PANEL_ID = 'rdskit-panel';
/** Ids go into code cells; anything else is refused rather than quoted. */
const SAFE_ID = /^[A-Za-z0-9_-]{1,100}$/;

/** The characters rdskit._safe.clean drops (tests/jupyter/test_security_text.py keeps the
 * two lists equal): C0 controls but tab and newline, DEL, C1 controls, and the bidi and
 * format controls (U+202A-202E overrides, U+2066-2069 isolates, U+200E/F marks, U+061C,
 * zero-width characters) that could make a name read backwards or hide its end. The one
 * sanitiser of the panel: every service string shown goes through plain(). */
const CONTROLS = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/g;
function plain(text: string): string {
  return text.replace(CONTROLS, '');
}

function el(tag: string, className: string, text?: string): HTMLElement {
  const node = document.createElement(tag);
  node.className = className;
  if (text !== undefined) {
    node.textContent = plain(text); // service data is text, never markup
  }
  return node;
}

function button(className: string, label: string, onClick: () => void): HTMLButtonElement {
  const node = el('button', `jp-mod-styled ${className}`, label) as HTMLButtonElement;
  node.onclick = onClick;
  return node;
}

/** An http(s) link to a post, opened in a new tab without access to this page. */
function safeLink(url: string | null, label: string): HTMLElement {
  let parsed: URL | null = null;
  try {
    parsed = url ? new URL(url) : null;
  } catch {
    parsed = null;
  }
  if (!parsed || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')) {
    return el('span', 'rds-lab-card-nolink', 'no link');
  }
  const link = el('a', 'rds-lab-card-link', label) as HTMLAnchorElement;
  link.href = parsed.href;
  link.target = '_blank';
  link.rel = 'noopener noreferrer';
  return link;
}

/** A Unix time as the same text on every machine (UTC). */
function when(unix: number | null): string {
  if (unix === null) {
    return 'unknown time';
  }
  return new Date(unix * 1000).toISOString().slice(0, 16).replace('T', ' ') + ' UTC';
}

/** Alerts the user marked read in this browser: the newest alert time seen, per agent. */
function seenKey(account: string, agent: string): string {
  return `rdskit:alerts-read:${account}:${agent}`;
}
function seenAt(account: string, agent: string): number {
  return Number(window.localStorage.getItem(seenKey(account, agent)) ?? '0') || 0;
}

/** The kernel of the active notebook (null: no notebook, or no kernel yet). */
function activeKernel(tracker: INotebookTracker): string | null {
  return tracker.currentWidget?.sessionContext.session?.kernel?.id ?? null;
}

/** A refused read: what happened, the fix, and when to try again (seconds). */
class ReadError extends Error {
  constructor(
    message: string,
    public fix: string,
    public status: number,
    public retryAfter: number | null
  ) {
    super(message);
  }
}

async function lab(path: string, init: RequestInit = {}): Promise<Response> {
  const settings = ServerConnection.makeSettings();
  const url = settings.baseUrl.replace(/\/?$/, '/') + 'rdskit/lab/' + path;
  return ServerConnection.makeRequest(url, init, settings);
}

async function refused(response: Response): Promise<ReadError> {
  let body: { reason?: string; fix?: string; message?: string } = {};
  try {
    body = await response.json();
  } catch {
    body = {};
  }
  const retry = Number(response.headers.get('Retry-After'));
  const reason = body.reason ?? body.message ?? `the Jupyter server answered ${response.status}`;
  const fix =
    body.fix ??
    (response.status === 404
      ? 'the rdskit server extension is not running: jupyter server extension enable rdskit'
      : 'try Refresh in a moment');
  return new ReadError(reason, fix, response.status, Number.isFinite(retry) && retry > 0 ? retry : null);
}

async function fetchSummary(kernel: string | null): Promise<ISummary> {
  const response = await lab('summary' + (kernel ? `?kernel=${encodeURIComponent(kernel)}` : ''));
  if (!response.ok) {
    throw await refused(response);
  }
  return (await response.json()) as ISummary;
}

/** The code that loads the magics in the notebook's kernel, silently (no output, no
 * history): a %%ask or %rds cell inserted before any `%load_ext rdskit` runs anyway. */
const LOAD_MAGICS = "get_ipython().extension_manager.load_extension('rdskit')";

/** A code cell below the active one of the current notebook, focused and selected (so
 * Shift+Enter runs it, once), or a message why not; `run` also runs it. */
async function insertCell(
  app: JupyterFrontEnd,
  tracker: INotebookTracker,
  source: string,
  run = false
): Promise<string | null> {
  const panel: NotebookPanel | null = tracker.currentWidget;
  if (!panel) {
    return 'open a notebook first';
  }
  if (source.startsWith('%')) {
    panel.sessionContext.session?.kernel?.requestExecute({ code: LOAD_MAGICS, silent: true, store_history: false });
  }
  const notebook = panel.content;
  NotebookActions.insertBelow(notebook);
  const cell = notebook.activeCell;
  if (!cell) {
    return 'no active cell';
  }
  cell.model.sharedModel.setSource(source);
  notebook.deselectAll();
  app.shell.activateById(panel.id);
  notebook.mode = 'command';
  notebook.node.focus();
  if (run) {
    await NotebookActions.run(notebook, panel.sessionContext);
  }
  return null;
}

/** Ask in the active notebook's kernel, under its budget (the server refused with 409
 * ask_in_kernel): rdskit.jupyter.panel_ask.ask_in_kernel, run silently (no cell, no
 * output, no history); the request goes in as hex digits, so nothing typed becomes code. */
async function askInKernel(tracker: INotebookTracker, request: IAskRequest): Promise<IAskResult> {
  const kernel = tracker.currentWidget?.sessionContext.session?.kernel;
  if (!kernel) {
    throw new Error("the notebook's kernel is not running");
  }
  const bytes = new TextEncoder().encode(JSON.stringify(request));
  const hex = Array.from(bytes, byte => byte.toString(16).padStart(2, '0')).join('');
  const call = `__import__('rdskit.jupyter.panel_ask', fromlist=['_']).ask_in_kernel('${hex}')`;
  const future = kernel.requestExecute({ code: '', silent: true, store_history: false, user_expressions: { answer: call } });
  const reply = (await future.done).content as { status: string; user_expressions?: Record<string, any> };
  const value = reply.user_expressions?.answer;
  if (reply.status !== 'ok' || !value || value.status !== 'ok') {
    throw new Error(value?.evalue ? `${value.ename}: ${value.evalue}` : "the notebook's kernel did not answer");
  }
  const body = value.data?.['application/json'];
  if (!body || typeof body.status === 'number') {
    throw new Error(body?.message ?? "the notebook's kernel gave no answer");
  }
  return body as IAskResult;
}

/** Elements the sanitizer keeps that an answer has no use for (defence in depth). */
const NOT_IN_ANSWERS = 'script, style, link, meta, iframe, frame, object, embed, form, input, button, textarea, select, img, svg, video, audio, source, base';

/** The answer's markdown (already made inert by the server: rdskit._safe.safe_markdown)
 * through JupyterLab's own markdown renderer, untrusted so its sanitizer runs; then, once
 * more: no header anchors, no element an answer has no use for, no event handler or style
 * attribute, links only to http(s) and opened in a new tab without access to this page,
 * bidi controls dropped, and each [N] with a citation a marker button (not inside code or
 * a link). LaTeX is left as text: a "$" in an answer is money, not math. It is rendered in
 * an inert document (nothing there loads or runs: an image the sanitizer kept would
 * otherwise be fetched as soon as it is parsed) and moved into the page once clean. */
async function renderAnswer(
  host: HTMLElement,
  answer: IAskResult,
  rendermime: IRenderMimeRegistry,
  marker: (label: string, citation: ICitation) => HTMLElement
): Promise<void> {
  const scratch = document.implementation.createHTMLDocument('').createElement('div');
  await renderMarkdown({
    host: scratch,
    source: plain(answer.markdown ?? answer.text),
    trusted: false,
    sanitizer: rendermime.sanitizer,
    resolver: null,
    linkHandler: null,
    shouldTypeset: false,
    latexTypesetter: null,
    markdownParser: rendermime.markdownParser
  });
  scratch.querySelectorAll('.jp-InternalAnchorLink').forEach(node => node.remove());
  scratch.querySelectorAll(NOT_IN_ANSWERS).forEach(node => node.replaceWith(node.textContent ?? ''));
  for (const node of Array.from(scratch.querySelectorAll('*'))) {
    for (const attribute of Array.from(node.attributes)) {
      if (/^on/i.test(attribute.name) || ['style', 'id', 'name', 'form', 'srcdoc'].includes(attribute.name)) {
        node.removeAttribute(attribute.name);
      } else {
        node.setAttribute(attribute.name, plain(attribute.value));
      }
    }
  }
  host.replaceChildren(...Array.from(scratch.childNodes, node => document.adoptNode(node)));
  for (const link of Array.from(host.querySelectorAll('a'))) {
    const safe = safeLink(link.getAttribute('href'), link.textContent ?? '');
    link.replaceWith(safe.tagName === 'A' ? safe : document.createTextNode(link.textContent ?? ''));
  }
  const byNumber = new Map(answer.citations.map(c => [c.citation, c]));
  const walker = document.createTreeWalker(host, NodeFilter.SHOW_TEXT);
  const texts: Text[] = [];
  while (walker.nextNode()) {
    texts.push(walker.currentNode as Text);
  }
  for (const node of texts) {
    node.data = plain(node.data);
    if (node.parentElement?.closest('code, pre, a')) {
      continue;
    }
    const parts = node.data.split(/(\[\d{1,4}\])/);
    if (parts.length === 1) {
      continue;
    }
    const pieces = parts.map(part => {
      const cited = /^\[(\d{1,4})\]$/.exec(part);
      const citation = cited ? byNumber.get(Number(cited[1])) : undefined;
      return citation ? marker(part, citation) : document.createTextNode(part);
    });
    node.replaceWith(...pieces);
  }
}

/** What a redraw can focus again. */
const FOCUSABLE = 'button, textarea, select, a[href], [tabindex]';

/** A control's key across redraws (each poll draws new elements): its tag and classes, and
 * the ids (data-id, data-ref) of it and of what it belongs to, e.g. "Insert loader" of a
 * dataset. Labels are left out: they change ("Ask" becomes "Asking…"). */
function focusKey(node: Element, root: Element): string {
  const parts: string[] = [];
  for (let at: Element | null = node; at && at !== root; at = at.parentElement) {
    const data = (at as HTMLElement).dataset ?? {};
    const id = data.id ?? data.ref;
    if (at === node || id !== undefined) {
      parts.push(`${at.tagName}.${at.className}#${id ?? ''}`);
    }
  }
  return parts.join(' < ');
}

/** The snippets, each runnable after any other in any order. */
const SNIPPETS = {
  connect: '%load_ext rdskit\n%rds connect --sandbox',
  loader: (dataset: string) =>
    `import rdskit.jupyter\nclient = rdskit.jupyter.current_client()  # the client %%ask uses\nframe = client.mentions.to_frame(dataset_ids=["${dataset}"])\nframe.head()`,
  ask: (dataset: string | null) =>
    `%%ask${dataset ? ' --dataset ' + dataset : ''}\nWhat do people complain about most?`,
  budget: (credits: number) => `%rds budget ${credits}`
};

class RdsPanel extends Widget {
  private last: ISummary | null = null;
  private chatId: string | null = null;
  private answerNode: HTMLElement | null = null; // rendered once per answer, kept across polls
  private asking = false;
  private question = '';
  private askDataset = '';
  private problem = '';
  private focused: string | null = null; // the focusKey of the panel's control with focus
  onRefresh: () => void = () => undefined;

  constructor(
    private app: JupyterFrontEnd,
    private tracker: INotebookTracker,
    private rendermime: IRenderMimeRegistry
  ) {
    super();
    this.id = PANEL_ID;
    this.addClass('rds-lab-panel');
    this.node.tabIndex = -1; // holds focus while the control that had it is redrawn
    this.title.icon = rdsIcon;
    this.title.caption = 'rdskit: ask, datasets, runs and credits';
    this.node.appendChild(el('div', 'rds-lab-empty', 'Reading the Research Data Service…'));
  }

  /** A fresh summary, or an error: the last good view stays, marked stale with why. */
  show_(summary: ISummary | null, error: ReadError | null): void {
    if (summary) {
      this.last = summary;
    }
    this.render(error);
  }

  private render(error: ReadError | null = null): void {
    const root = this.node;
    const scroll = root.scrollTop;
    // A poll redraws the panel: a keyboard user keeps the control they are on (found again
    // by its key), and whoever is typing in the question box keeps focus and caret. Focus
    // elsewhere (a notebook cell being edited) is never touched.
    const active = document.activeElement;
    const inside = active instanceof HTMLElement && root.contains(active);
    if (inside && active !== root) {
      this.focused = focusKey(active, root);
    } else if (!inside) {
      this.focused = null;
    } // on the panel itself: its control is gone for now (a disabled Ask); come back to it
    const typing = active instanceof HTMLTextAreaElement && inside ? [active.selectionStart, active.selectionEnd] : null;
    this.renderInto(root, error);
    root.scrollTop = scroll;
    if (this.focused === null) {
      return;
    }
    const again = Array.from(root.querySelectorAll<HTMLElement>(FOCUSABLE)).find(
      node => focusKey(node, root) === this.focused && !(node as HTMLButtonElement).disabled
    );
    (again ?? root).focus({ preventScroll: true });
    if (typing && again instanceof HTMLTextAreaElement) {
      again.setSelectionRange(typing[0], typing[1]);
    }
  }

  private renderInto(root: HTMLElement, error: ReadError | null): void {
    root.replaceChildren();
    const summary = this.last;
    const header = el('div', 'rds-lab-header');
    const icon = el('span', 'rds-lab-header-icon');
    rdsIcon.element({ container: icon, height: '18px', width: '18px' });
    header.append(icon, el('h2', 'rds-lab-title', 'Research Data Service'));
    header.appendChild(button('rds-lab-refresh', 'Refresh', () => this.onRefresh()));
    root.appendChild(header);
    const stale = error
      ? { reason: error.message, fix: error.fix, retry: error.retryAfter }
      : summary?.stale
        ? { reason: summary.stale.reason, fix: summary.stale.fix, retry: summary.stale.retry_after }
        : null;
    const readAt = summary?.stale ? summary.stale.since : summary?.read_at;
    root.appendChild(el('div', 'rds-lab-updated', readAt ? `Last updated ${clock(readAt)}` : 'Not read yet'));
    if (stale) {
      const banner = el('div', 'rds-lab-stale');
      const again = stale.retry ? ` Next try in ${Math.ceil(stale.retry)} s.` : '';
      banner.appendChild(el('div', 'rds-lab-stale-reason', `${summary ? 'Showing the last view: ' : ''}${stale.reason}.${again}`));
      banner.appendChild(el('div', 'rds-lab-stale-fix', `Fix: ${stale.fix}`));
      root.appendChild(banner);
    }
    if (!summary) {
      return;
    }
    root.classList.toggle('rds-lab-is-stale', stale !== null);
    const head = el('div', 'rds-lab-account');
    head.dataset.scope = summary.viewing.scope;
    head.appendChild(el('div', 'rds-lab-viewing', summary.viewing.label));
    if (summary.viewing.note) {
      head.appendChild(el('div', 'rds-lab-viewing-note', summary.viewing.note));
    }
    const budget = summary.kernel_budget;
    if (budget) {
      const line = el('div', 'rds-lab-budget', `Kernel budget: ${budget.text}`);
      line.dataset.set = String(budget.set);
      head.appendChild(line);
    }
    const account = summary.account;
    if (!account) {
      root.appendChild(head);
      return;
    }
    const who = [account.email, account.team, account.plan && `plan ${account.plan}`].filter(Boolean).join(' · ');
    head.appendChild(el('div', 'rds-lab-who', who));
    head.appendChild(el('div', 'rds-lab-credits', `Credits left: ${(account.credits_left ?? 'unknown').replace(/ credits$/, '')}`));
    const runs = summary.runs_in_flight === 1 ? '1 run in flight' : `${summary.runs_in_flight} runs in flight`;
    head.appendChild(el('div', 'rds-lab-agents', `${runs} · ${summary.tracking_agents} tracking agent(s)`));
    root.appendChild(head);
    this.showAsk(summary);
    root.appendChild(el('h3', 'rds-lab-heading', 'Datasets'));
    const list = el('ul', 'rds-lab-datasets');
    if (summary.datasets.length === 0) {
      root.appendChild(el('div', 'rds-lab-empty', 'No datasets yet: client.datasets.create("…") makes one.'));
    }
    for (const dataset of summary.datasets) {
      const item = el('li', 'rds-lab-dataset');
      item.dataset.id = dataset.id;
      item.appendChild(el('div', 'rds-lab-dataset-name', dataset.name));
      item.appendChild(el('div', 'rds-lab-dataset-id', dataset.id));
      for (const run of dataset.runs) {
        const line = el('div', 'rds-lab-run');
        line.dataset.status = run.status;
        const share = run.share === null ? '' : ` · ${Math.round(run.share * 100)} %`;
        line.appendChild(el('span', 'rds-lab-run-text', `${run.id}: ${run.status}${share}${run.mentions ? ' · ' + run.mentions : ''}`));
        const bar = el('span', 'rds-lab-run-bar');
        const fill = el('span', 'rds-lab-run-fill');
        fill.style.width = `${Math.max(0, Math.min(1, run.share ?? 0)) * 100}%`;
        bar.appendChild(fill);
        line.appendChild(bar);
        item.appendChild(line);
      }
      const note = el('div', 'rds-lab-note');
      const insert = (source: string): void => {
        if (!SAFE_ID.test(dataset.id)) {
          note.textContent = 'this dataset id cannot be written into code safely';
          return;
        }
        void insertCell(this.app, this.tracker, source).then(problem => (note.textContent = problem ?? ''));
      };
      const buttons = el('div', 'rds-lab-buttons');
      buttons.append(
        button('rds-lab-insert-loader', 'Insert loader', () => insert(SNIPPETS.loader(dataset.id))),
        button('rds-lab-insert-ask', 'Insert %%ask cell', () => insert(SNIPPETS.ask(dataset.id)))
      );
      item.append(buttons, note);
      list.appendChild(item);
    }
    root.appendChild(list);
    const names = new Map(summary.datasets.map(d => [d.id, d.name]));
    this.showAgents(summary, account.id ?? '');
    this.showChats(summary, names);
    this.showUsage(summary);
    root.appendChild(el('div', 'rds-lab-foot', `Requests to the service: at most ${summary.rate_limit} per second for this server, ${summary.queued} waiting`));
  }

  /** The ask box: a dataset, a question, the answer with its citation cards, and the
   * same question as an %%ask cell in the notebook. */
  private showAsk(summary: ISummary): void {
    const box = el('div', 'rds-lab-ask');
    box.appendChild(el('h3', 'rds-lab-heading', 'Ask'));
    const picker = el('select', 'jp-mod-styled rds-lab-ask-dataset') as HTMLSelectElement;
    picker.setAttribute('aria-label', 'Dataset to ask about');
    picker.appendChild(new Option('Any dataset of the account', ''));
    for (const dataset of summary.datasets) {
      picker.appendChild(new Option(plain(dataset.name), dataset.id));
    }
    picker.value = summary.datasets.some(d => d.id === this.askDataset) ? this.askDataset : '';
    picker.onchange = () => (this.askDataset = picker.value);
    const input = el('textarea', 'rds-lab-ask-question') as HTMLTextAreaElement;
    input.placeholder = 'What do people complain about most?';
    input.setAttribute('aria-label', 'Question');
    input.rows = 3;
    input.value = this.question;
    input.oninput = () => (this.question = input.value);
    const send = button('rds-lab-ask-send', this.asking ? 'Asking…' : 'Ask', () => void this.ask());
    send.disabled = this.asking; // one click, one paid question
    input.onkeydown = (event: KeyboardEvent) => {
      if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        void this.ask();
      }
    };
    const row = el('div', 'rds-lab-buttons');
    row.appendChild(send);
    if (this.chatId) {
      box.appendChild(el('div', 'rds-lab-note rds-lab-ask-chat', `Continuing chat ${this.chatId}`));
      row.appendChild(button('rds-lab-ask-new', 'New chat', () => {
        this.chatId = null;
        this.answerNode = null;
        this.render();
      }));
    }
    box.append(picker, input, row);
    if (this.problem) {
      box.appendChild(el('div', 'rds-lab-error', this.problem));
    }
    if (this.answerNode) {
      box.appendChild(this.answerNode);
    }
    this.node.appendChild(box);
  }

  private async ask(): Promise<void> {
    const question = this.question.trim();
    if (this.asking || !question) {
      return;
    }
    this.asking = true;
    this.problem = '';
    this.render();
    try {
      const request: IAskRequest = {
        question,
        datasets: this.askDataset ? [this.askDataset] : [],
        chat_id: this.chatId,
        kernel: activeKernel(this.tracker)
      };
      const response = await lab('ask', { method: 'POST', body: JSON.stringify(request) });
      let answer: IAskResult | null = null;
      if (response.ok) {
        answer = (await response.json()) as IAskResult;
      } else if (response.status === 409 && (await response.clone().json().catch(() => ({}))).code === 'ask_in_kernel') {
        // The kernel's budget (or its own key) lives there: it asks, under that budget.
        answer = await askInKernel(this.tracker, request);
      } else {
        const error = await refused(response);
        this.problem = `Not answered: ${error.message}` + (error.retryAfter ? ` (try again in ${error.retryAfter} s)` : '');
      }
      if (answer) {
        this.answerNode = await this.answerView(answer);
        this.chatId = answer.chat_id;
        this.question = '';
      }
    } catch (error) {
      this.problem = `Not answered: ${error instanceof Error ? error.message : String(error)}`;
    }
    this.asking = false;
    this.render();
    this.onRefresh();
  }

  private async answerView(answer: IAskResult): Promise<HTMLElement> {
    const view = el('div', 'rds-lab-answer');
    const text = el('div', 'rds-lab-answer-text jp-RenderedHTMLCommon jp-RenderedMarkdown');
    const card = el('div', 'rds-lab-card');
    card.hidden = true;
    await renderAnswer(text, answer, this.rendermime, (label, citation) => {
      const marker = button('rds-lab-cite', label, () => {
        const same = !card.hidden && card.dataset.ref === String(citation.citation);
        card.hidden = same;
        if (!same) {
          fillCard(card, citation);
        }
      });
      marker.dataset.ref = String(citation.citation);
      return marker;
    });
    const send = button('rds-lab-ask-to-notebook', 'Send to notebook', () => {
      if (!/^%%ask( --(dataset|chat) [A-Za-z0-9_-]{1,100})*\n/.test(answer.cell)) {
        note.textContent = 'this answer cannot be written into a cell safely';
        return;
      }
      void insertCell(this.app, this.tracker, answer.cell).then(problem => (note.textContent = problem ?? ''));
    });
    const note = el('div', 'rds-lab-note');
    const where = answer.asked_in === 'kernel' ? " · asked in this notebook's kernel (its budget counts it)" : '';
    view.append(text, card, el('div', 'rds-lab-note rds-lab-ask-where', `chat ${answer.chat_id} · ${answer.citations.length} posts cited${where}`), send, note);
    return view;
  }

  /** Continue a listed chat in the ask box. */
  continueHere(chat: string): void {
    this.chatId = chat;
    this.answerNode = null;
    this.render();
    (this.node.querySelector('.rds-lab-ask-question') as HTMLTextAreaElement | null)?.focus();
  }

  /** Tracking agents: unread alerts (newer than those marked read in this browser). */
  private showAgents(summary: ISummary, account: string): void {
    this.node.appendChild(el('h3', 'rds-lab-heading', 'Tracking agents and alerts'));
    const list = el('ul', 'rds-lab-agent-list');
    if (summary.agents.length === 0) {
      this.node.appendChild(el('div', 'rds-lab-empty', 'No tracking agents.'));
    }
    for (const agent of summary.agents) {
      const item = el('li', 'rds-lab-agent');
      item.dataset.id = agent.id;
      const seen = seenAt(account, agent.id);
      const unread = agent.alerts.filter(alert => (alert.at ?? 0) > seen).length;
      const all = unread === agent.alerts.length && agent.more;
      const top = el('div', 'rds-lab-agent-head');
      top.appendChild(el('span', 'rds-lab-agent-name', agent.name));
      const badge = el('span', 'rds-lab-unread', `${unread}${all ? '+' : ''} unread`);
      badge.dataset.count = String(unread);
      top.appendChild(badge);
      if (agent.paused) {
        top.appendChild(el('span', 'rds-lab-paused', 'paused'));
      }
      item.appendChild(top);
      for (const alert of agent.alerts.slice(0, 3)) {
        const line = el('div', 'rds-lab-alert');
        line.dataset.unread = String((alert.at ?? 0) > seen);
        const mentions = alert.new_mentions === null ? '' : ` · ${alert.new_mentions} new mentions`;
        line.appendChild(el('span', 'rds-lab-alert-when', `${when(alert.at)}${mentions}`));
        line.appendChild(el('span', 'rds-lab-alert-text', alert.preview));
        item.appendChild(line);
      }
      if (unread > 0) {
        const mark = el('button', 'jp-mod-styled rds-lab-mark-read', 'Mark read') as HTMLButtonElement;
        mark.onclick = () => {
          const newest = Math.max(...agent.alerts.map(alert => alert.at ?? 0));
          window.localStorage.setItem(seenKey(account, agent.id), String(newest));
          badge.textContent = '0 unread';
          badge.dataset.count = '0';
          mark.remove();
        };
        item.appendChild(mark);
      }
      list.appendChild(item);
    }
    this.node.appendChild(list);
  }

  /** Chats (the service has no list: those the source names), each continued by %%ask. */
  private showChats(summary: ISummary, names: Map<string, string>): void {
    this.node.appendChild(el('h3', 'rds-lab-heading', 'Chats'));
    this.node.appendChild(el('div', 'rds-lab-note rds-lab-chats-source', summary.chats.source ? `Chats ${summary.chats.source}` : ''));
    const list = el('ul', 'rds-lab-chat-list');
    if (summary.chats.items.length === 0) {
      this.node.appendChild(el('div', 'rds-lab-empty', 'No chats yet: an %%ask cell starts one.'));
    }
    for (const chat of summary.chats.items) {
      const item = el('li', 'rds-lab-chat');
      item.dataset.id = chat.id;
      item.appendChild(el('div', 'rds-lab-chat-title', chat.title ?? 'untitled chat'));
      const datasets = chat.datasets.map(id => names.get(id) ?? id).join(', ');
      item.appendChild(el('div', 'rds-lab-chat-meta', `${datasets ? datasets + ' · ' : ''}last activity ${when(chat.last_activity)}`));
      const note = el('div', 'rds-lab-note');
      const cell = button('rds-lab-insert-chat', 'Continue with %%ask', () => {
        if (!SAFE_ID.test(chat.id)) {
          note.textContent = 'this chat id cannot be written into code safely';
          return;
        }
        void insertCell(this.app, this.tracker, `%%ask --chat ${chat.id}\nWhat else should I know?`).then(
          problem => (note.textContent = problem ?? '')
        );
      });
      const here = button('rds-lab-continue-chat', 'Continue here', () => this.continueHere(chat.id));
      const buttons = el('div', 'rds-lab-buttons');
      buttons.append(here, cell);
      item.append(buttons, note);
      list.appendChild(item);
    }
    this.node.appendChild(list);
  }

  /** Credits charged per day (and per category), from the usage history. */
  private showUsage(summary: ISummary): void {
    this.node.appendChild(el('h3', 'rds-lab-heading', 'Usage history'));
    const usage = summary.usage;
    if (usage.days.length === 0) {
      this.node.appendChild(el('div', 'rds-lab-empty', 'Nothing charged yet.'));
      return;
    }
    const list = el('ul', 'rds-lab-usage');
    const shown = usage.days.slice(0, 7);
    const most = Math.max(...shown.map(day => Number(day.credits) || 0), 1);
    for (const day of shown) {
      const row = el('li', 'rds-lab-usage-day');
      row.dataset.day = day.day;
      const usd = day.no_credits ? ` (${day.no_credits} charge(s) in USD only)` : '';
      row.appendChild(el('div', 'rds-lab-usage-credits', `${day.day}: ${day.credits} credits · $${day.usd}${usd}`));
      // The chart: one bar per day, its length the day's credits over the largest day shown.
      const bar = el('span', 'rds-lab-usage-bar');
      const fill = el('span', 'rds-lab-usage-fill');
      fill.style.width = `${((Number(day.credits) || 0) / most) * 100}%`;
      bar.appendChild(fill);
      row.appendChild(bar);
      row.appendChild(el('div', 'rds-lab-usage-by', day.by.map(part => `${part.category} ${part.credits}`).join(' · ')));
      list.appendChild(row);
    }
    this.node.appendChild(list);
    const scope = usage.more ? `the latest ${usage.rows} charges (there are older ones)` : `all ${usage.rows} charges`;
    this.node.appendChild(el('div', 'rds-lab-note', `Credits per day, bars scaled to the largest day shown (${most} credits); from ${scope}; days in UTC.`));
  }
}

/** The citation card of the ask box: source, author, title, excerpt, a link. */
function fillCard(card: HTMLElement, citation: ICitation): void {
  card.replaceChildren();
  card.dataset.ref = String(citation.citation);
  card.hidden = false;
  const head = [citation.source, citation.author].filter(Boolean).join(' · ');
  card.appendChild(el('div', 'rds-lab-card-head', `[${citation.citation}] ${head}`));
  if (citation.title) {
    card.appendChild(el('div', 'rds-lab-card-title', citation.title));
  }
  card.appendChild(el('div', 'rds-lab-card-text', citation.excerpt || `post ${citation.id}`));
  card.appendChild(safeLink(citation.url, 'Open the post'));
}

/** A Unix time as the local clock time (the panel's "last updated"). */
function clock(unix: number): string {
  return new Date(unix * 1000).toLocaleTimeString();
}

/** The status bar item: a dot (connected, stale, not reachable), the credits left and the
 * runs in flight; a click opens a popover with the detail and a button to the panel. */
class RdsStatus extends Widget {
  private dot = el('span', 'rds-lab-dot');
  private text = el('span', 'rds-lab-status-text', 'rdskit');
  private popover: HTMLElement | null = null;
  private detail: string[] = ['rdskit: reading the service…'];

  constructor(private openPanel: () => void) {
    super();
    this.addClass('rds-lab-status');
    this.node.append(this.dot, this.text);
    this.node.title = 'rdskit: click for details';
    this.node.onclick = () => this.toggle();
    // Reachable and usable from the keyboard too: Tab to it, Enter or Space opens the popover.
    this.node.tabIndex = 0;
    this.node.setAttribute('role', 'button');
    this.node.onkeydown = (event: KeyboardEvent) => {
      if (event.key === 'Enter' || event.key === ' ') {
        event.preventDefault();
        this.toggle();
      }
    };
  }

  private last: ISummary | null = null;

  show_(fresh: ISummary | null, error: ReadError | null): void {
    // An error keeps the last good figures on show (marked by the dot): never "not
    // connected" for a throttle or a passing failure.
    this.last = fresh ?? this.last;
    const summary = this.last;
    const throttled = (error?.status ?? summary?.stale?.status) === 429;
    const stale = error ?? (summary?.stale ? { message: summary.stale.reason, fix: summary.stale.fix } : null);
    this.dot.dataset.state = stale ? (throttled || summary ? 'stale' : 'down') : 'up';
    const budget = summary?.kernel_budget;
    this.node.dataset.budget = budget ? String(budget.set) : 'none';
    const detail: string[] = [];
    if (summary) {
      detail.push(summary.viewing.label);
      if (summary.account) {
        const who = [summary.account.email, summary.account.plan && `plan ${summary.account.plan}`].filter(Boolean).join(' · ');
        detail.push(who, `Credits left: ${(summary.account.credits_left ?? 'unknown').replace(/ credits$/, '')}`);
      }
      detail.push(summary.runs_in_flight === 1 ? '1 run in flight' : `${summary.runs_in_flight} runs in flight`);
      if (budget) {
        detail.push(`Kernel budget: ${budget.text}`);
      }
    }
    if (stale) {
      detail.push(`${throttled ? 'Throttled' : summary ? 'Not up to date' : 'Not reachable'}: ${stale.message}`, `Fix: ${stale.fix}`);
    }
    this.detail = detail;
    if (!summary) {
      this.text.textContent = 'rdskit: not reachable';
    } else if (!summary.account) {
      this.text.textContent = plain(`rdskit: own key${budget?.set ? ' · ' + budget.short : ''}`);
    } else {
      const credits = (summary.account.credits_left ?? '?').replace(/ credits$/, '');
      const runs = summary.runs_in_flight ? ` · ${summary.runs_in_flight} running` : '';
      const spent = budget?.set ? ` · ${budget.short}` : '';
      this.text.textContent = plain(`rdskit · ${credits} credits${runs}${spent}`);
    }
    this.node.title = plain(this.detail.join('\n'));
    if (this.popover) {
      this.fill(this.popover);
    }
  }

  private fill(popover: HTMLElement): void {
    popover.replaceChildren(...this.detail.filter(Boolean).map(line => el('div', 'rds-lab-popover-line', line)));
    popover.appendChild(button('rds-lab-popover-open', 'Open the panel', () => {
      this.closePopover();
      this.openPanel();
    }));
  }

  private toggle(): void {
    if (this.popover) {
      this.closePopover();
      return;
    }
    const popover = el('div', 'rds-lab-popover');
    popover.setAttribute('role', 'dialog');
    this.fill(popover);
    document.body.appendChild(popover);
    const box = this.node.getBoundingClientRect();
    popover.style.left = `${Math.max(4, Math.min(box.left, window.innerWidth - popover.offsetWidth - 4))}px`;
    popover.style.bottom = `${window.innerHeight - box.top + 4}px`;
    this.popover = popover;
    const away = (event: Event): void => {
      if (event instanceof KeyboardEvent ? event.key === 'Escape' : !popover.contains(event.target as Node) && !this.node.contains(event.target as Node)) {
        this.closePopover();
      }
    };
    document.addEventListener('mousedown', away, true);
    document.addEventListener('keydown', away, true);
    this.closeListeners = () => {
      document.removeEventListener('mousedown', away, true);
      document.removeEventListener('keydown', away, true);
    };
  }

  private closeListeners: () => void = () => undefined;

  private closePopover(): void {
    this.popover?.remove();
    this.popover = null;
    this.closeListeners();
  }
}

/** Citation cards: Escape closes a pinned card (focus back on its marker); a card that
 * would leave the window at the bottom opens above its marker. */
function citationKeys(): void {
  document.addEventListener(
    'keydown',
    (event: KeyboardEvent) => {
      if (event.key !== 'Escape') {
        return;
      }
      const target = event.target as Element | null;
      const marker = target?.closest?.('.rds-marker[open]') as HTMLDetailsElement | null;
      if (marker) {
        marker.open = false;
        (marker.querySelector('summary') as HTMLElement | null)?.focus();
        event.stopPropagation();
        event.preventDefault();
      }
    },
    true
  );
  const place = (event: Event): void => {
    const marker = (event.target as Element | null)?.closest?.('.rds-marker');
    const card = marker?.querySelector(':scope > .rds-card') as HTMLElement | null;
    if (!marker || !card) {
      return;
    }
    requestAnimationFrame(() => {
      card.style.removeProperty('transform');
      const box = card.getBoundingClientRect();
      const line = (marker.querySelector('summary') as HTMLElement).getBoundingClientRect();
      if (box.height > 0 && box.bottom > window.innerHeight && line.top - box.height > 0) {
        card.style.transform = `translateY(${-(box.top - line.top) - box.height - 2}px)`;
        marker.classList.add('rds-card-up');
      } else {
        marker.classList.remove('rds-card-up');
      }
    });
  };
  for (const name of ['mouseover', 'focusin', 'toggle']) {
    document.addEventListener(name, place, true);
  }
}

/** The starter notebook's cells (rdskit/jupyter/starter.ipynb, served by the server
 * extension: one file, which the test suite executes on the sandbox). */
type StarterCell = { cell_type: 'markdown' | 'code' | 'raw'; source: string };
async function starterCells(): Promise<StarterCell[]> {
  const response = await lab('starter');
  if (!response.ok) {
    throw await refused(response);
  }
  const notebook = (await response.json()) as { cells: { cell_type: StarterCell['cell_type']; source: string | string[] }[] };
  return notebook.cells.map(cell => ({
    cell_type: cell.cell_type,
    source: Array.isArray(cell.source) ? cell.source.join('') : cell.source
  }));
}

const plugin: JupyterFrontEndPlugin<void> = {
  id: 'jupyterlab-rdskit:plugin',
  description: 'rdskit: status bar item, side panel with an ask box, insert-code buttons and commands',
  autoStart: true,
  requires: [ICommandPalette, INotebookTracker, IRenderMimeRegistry],
  optional: [IStatusBar, ILauncher, ILabShell],
  activate: (
    app: JupyterFrontEnd,
    palette: ICommandPalette,
    tracker: INotebookTracker,
    rendermime: IRenderMimeRegistry,
    statusBar: IStatusBar | null,
    launcher: ILauncher | null
  ) => {
    const panel = new RdsPanel(app, tracker, rendermime);
    app.shell.add(panel, 'left', { rank: 900 });
    const open = (): void => app.shell.activateById(PANEL_ID);
    const status = new RdsStatus(open);
    if (statusBar) {
      statusBar.registerStatusItem('jupyterlab-rdskit:status', { item: status, align: 'left', rank: 900 });
    }
    const category = 'rdskit';
    const insertOrSay = async (source: string, run = false): Promise<void> => {
      const problem = await insertCell(app, tracker, source, run);
      if (problem) {
        void InputDialog.getText({ title: `rdskit: ${problem}`, text: source });
      }
    };
    app.commands.addCommand('rdskit:open-panel', { label: 'rdskit: Open the panel', icon: rdsIcon, execute: open });
    app.commands.addCommand('rdskit:new-ask-cell', {
      label: 'rdskit: New %%ask cell',
      execute: () => insertOrSay(SNIPPETS.ask(null))
    });
    app.commands.addCommand('rdskit:connect-sandbox', {
      label: 'rdskit: Connect to the sandbox (inserts the cell)',
      execute: () => insertOrSay(SNIPPETS.connect)
    });
    app.commands.addCommand('rdskit:connect-sandbox-run', {
      label: 'rdskit: Connect to the sandbox (insert and run)',
      execute: () => insertOrSay(SNIPPETS.connect, true)
    });
    app.commands.addCommand('rdskit:set-budget', {
      label: 'rdskit: Set a budget (inserts the cell)',
      execute: async () => {
        const answer = await InputDialog.getNumber({ title: 'Budget in credits for this kernel', value: 100 });
        if (answer.button.accept && answer.value !== null && answer.value >= 0) {
          await insertOrSay(SNIPPETS.budget(Math.floor(answer.value)));
        }
      }
    });
    app.commands.addCommand('rdskit:starter', {
      label: (args: { isLauncher?: boolean }) => (args.isLauncher ? 'rdskit starter' : 'rdskit: New starter notebook'),
      caption: 'A new notebook that asks the Research Data Service a first question',
      icon: rdsIcon,
      execute: async () => {
        let cells;
        try {
          cells = await starterCells();
        } catch (caught) {
          const error = caught instanceof ReadError ? `${caught.message}; fix: ${caught.fix}` : String(caught);
          void InputDialog.getText({ title: 'rdskit: the starter notebook could not be read', text: plain(error) });
          return;
        }
        const made = (await app.commands.execute('notebook:create-new', { kernelName: 'python3' })) as NotebookPanel;
        await made.context.ready;
        const model = made.content.model;
        if (model) {
          model.sharedModel.transact(() => {
            model.sharedModel.insertCells(0, cells);
            // the new notebook's own empty cell goes: the starter is the whole notebook
            model.sharedModel.deleteCell(cells.length);
          });
        }
      }
    });
    for (const command of ['rdskit:open-panel', 'rdskit:new-ask-cell', 'rdskit:connect-sandbox', 'rdskit:connect-sandbox-run', 'rdskit:set-budget', 'rdskit:starter']) {
      palette.addItem({ command, category });
    }
    if (launcher) {
      // "Other", not "Notebook": a Notebook card shows a kernel's logo, or the first letter
      // of its label in orange (an "R" that reads as an R kernel); here the command's icon.
      launcher.add({ command: 'rdskit:starter', category: 'Other', rank: 0, args: { isLauncher: true } });
    }
    citationKeys();

    let delay = 5000;
    let timer: number | undefined;
    let polling = false;
    let again = false;
    let stopped = false;
    window.addEventListener('beforeunload', () => (stopped = true));
    const poll = async (): Promise<void> => {
      window.clearTimeout(timer);
      if (stopped) {
        return;
      }
      if (polling) {
        again = true; // a read is under way: the next one follows it at once
        return;
      }
      polling = true;
      again = false;
      try {
        const summary = await fetchSummary(activeKernel(tracker));
        delay = Math.max(1000, summary.next_poll * 1000);
        panel.show_(summary, null);
        status.show_(summary, null);
      } catch (caught) {
        const error =
          caught instanceof ReadError
            ? caught
            : new ReadError('the Jupyter server did not answer', 'check that it is still running', 0, null);
        // A throttle is waited out as the service asks; anything else is tried again in 15 s.
        delay = Math.max(1000, (error.retryAfter ?? 15) * 1000);
        panel.show_(null, error);
        status.show_(null, error);
      }
      polling = false;
      timer = window.setTimeout(() => void poll(), again ? 0 : delay);
    };
    panel.onRefresh = () => void poll();
    // Follow the active notebook: another notebook, or its kernel changed or restarted.
    let watched: NotebookPanel | null = null;
    const follow = (): void => {
      watched?.sessionContext.kernelChanged.disconnect(follow);
      watched = tracker.currentWidget;
      watched?.sessionContext.kernelChanged.connect(follow);
      void poll();
    };
    tracker.currentChanged.connect(follow);
    void poll();
  }
};

export default plugin;
