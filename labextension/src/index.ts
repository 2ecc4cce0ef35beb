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
 * seconds). Everything the service wrote is rendered with textContent, never as HTML.
 */
import {
  ILabShell,
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import { ICommandPalette, InputDialog } from '@jupyterlab/apputils';
import { ILauncher } from '@jupyterlab/launcher';
import { INotebookTracker, NotebookActions, NotebookPanel } from '@jupyterlab/notebook';
import { ServerConnection } from '@jupyterlab/services';
import { IStatusBar } from '@jupyterlab/statusbar';
import { Widget } from '@lumino/widgets';

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
interface ISummary {
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

function el(tag: string, className: string, text?: string): HTMLElement {
  const node = document.createElement(tag);
  node.className = className;
  if (text !== undefined) {
    node.textContent = text; // service data is text, never markup
  }
  return node;
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

async function fetchSummary(kernel: string | null): Promise<ISummary> {
  const settings = ServerConnection.makeSettings();
  const query = kernel ? `?kernel=${encodeURIComponent(kernel)}` : '';
  const url = settings.baseUrl.replace(/\/?$/, '/') + 'rdskit/lab/summary' + query;
  const response = await ServerConnection.makeRequest(url, {}, settings);
  if (!response.ok) {
    throw new Error(`the rdskit gateway answered ${response.status}`);
  }
  return (await response.json()) as ISummary;
}

/** A code cell below the active one of the current notebook (or a message why not). */
function insertCell(tracker: INotebookTracker, source: string): string | null {
  const panel: NotebookPanel | null = tracker.currentWidget;
  if (!panel) {
    return 'open a notebook first';
  }
  NotebookActions.insertBelow(panel.content);
  const cell = panel.content.activeCell;
  if (!cell) {
    return 'no active cell';
  }
  cell.model.sharedModel.setSource(source);
  return null;
}

class RdsPanel extends Widget {
  constructor(private tracker: INotebookTracker) {
    super();
    this.id = PANEL_ID;
    this.addClass('rds-lab-panel');
    this.title.label = 'rdskit';
    this.title.caption = 'rdskit: datasets, runs and credits';
    this.node.appendChild(el('div', 'rds-lab-empty', 'rdskit: reading the service…'));
  }

  show_(summary: ISummary | null, error: string | null): void {
    const root = this.node;
    root.replaceChildren();
    if (error || !summary) {
      root.appendChild(el('div', 'rds-lab-error', `rdskit: ${error ?? 'no data yet'}`));
      return;
    }
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
    head.appendChild(el('div', 'rds-lab-credits', `Credits left: ${account.credits_left ?? 'unknown'}`));
    head.appendChild(el('div', 'rds-lab-agents', `Tracking agents: ${summary.tracking_agents} · runs in flight: ${summary.runs_in_flight}`));
    root.appendChild(head);
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
      const buttons = el('div', 'rds-lab-buttons');
      const loader = el('button', 'jp-mod-styled rds-lab-insert-loader', 'Insert loader') as HTMLButtonElement;
      const ask = el('button', 'jp-mod-styled rds-lab-insert-ask', 'Insert %%ask cell') as HTMLButtonElement;
      const note = el('div', 'rds-lab-note');
      const insert = (source: string): void => {
        if (!SAFE_ID.test(dataset.id)) {
          note.textContent = 'this dataset id cannot be written into code safely';
          return;
        }
        note.textContent = insertCell(this.tracker, source) ?? '';
      };
      loader.onclick = () => insert(`frame = client.mentions.to_frame(dataset_ids=["${dataset.id}"])\nframe.head()`);
      ask.onclick = () => insert(`%%ask --dataset ${dataset.id}\nWhat do people complain about most?`);
      buttons.append(loader, ask);
      item.append(buttons, note);
      list.appendChild(item);
    }
    root.appendChild(list);
    const names = new Map(summary.datasets.map(d => [d.id, d.name]));
    this.showAgents(summary, account.id ?? '');
    this.showChats(summary, names);
    this.showUsage(summary);
    root.appendChild(el('div', 'rds-lab-foot', `Shared request bucket: ${summary.rate_limit} req/s, ${summary.queued} queued`));
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
      const button = el('button', 'jp-mod-styled rds-lab-insert-chat', 'Continue with %%ask') as HTMLButtonElement;
      const note = el('div', 'rds-lab-note');
      button.onclick = () => {
        note.textContent = SAFE_ID.test(chat.id)
          ? insertCell(this.tracker, `%%ask --chat ${chat.id}\nWhat else should I know?`) ?? ''
          : 'this chat id cannot be written into code safely';
      };
      item.append(button, note);
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
    for (const day of usage.days.slice(0, 7)) {
      const row = el('li', 'rds-lab-usage-day');
      row.dataset.day = day.day;
      const usd = day.no_credits ? ` (${day.no_credits} charge(s) in USD only)` : '';
      row.appendChild(el('div', 'rds-lab-usage-credits', `${day.day}: ${day.credits} credits · $${day.usd}${usd}`));
      row.appendChild(el('div', 'rds-lab-usage-by', day.by.map(part => `${part.category} ${part.credits}`).join(' · ')));
      list.appendChild(row);
    }
    this.node.appendChild(list);
    const scope = usage.more ? `the latest ${usage.rows} charges (there are older ones)` : `all ${usage.rows} charges`;
    this.node.appendChild(el('div', 'rds-lab-note', `From ${scope}; days in UTC.`));
  }
}

class RdsStatus extends Widget {
  constructor(onClick: () => void) {
    super();
    this.addClass('rds-lab-status');
    this.node.textContent = 'rdskit';
    this.node.title = 'rdskit: click to open the panel';
    this.node.onclick = onClick;
    // Reachable and usable from the keyboard too: Tab to it, Enter or Space opens the panel.
    this.node.tabIndex = 0;
    this.node.setAttribute('role', 'button');
    this.node.onkeydown = (event: KeyboardEvent) => {
      if (event.key === 'Enter' || event.key === ' ') {
        event.preventDefault();
        onClick();
      }
    };
  }

  show_(summary: ISummary | null, error: string | null): void {
    if (error || !summary) {
      this.node.textContent = 'rdskit: not connected';
      return;
    }
    const budget = summary.kernel_budget;
    const kernel = budget ? `Kernel budget: ${budget.text}. ` : '';
    this.node.title = `rdskit: ${summary.viewing.label}. ${kernel}Click to open the panel.`;
    const spent = budget ? ` · ${budget.short}` : '';
    this.node.dataset.budget = budget ? String(budget.set) : 'none';
    const mine = summary.viewing.scope === 'notebook';
    if (!summary.account) {
      this.node.textContent = `rdskit: this notebook's own key (${summary.connected.upstream})${spent}`;
      return;
    }
    const where = mine
      ? 'notebook sandbox'
      : summary.connected.mode === 'sandbox'
        ? 'sandbox'
        : summary.connected.upstream;
    const runs = summary.runs_in_flight === 1 ? '1 run' : `${summary.runs_in_flight} runs`;
    this.node.textContent = `rdskit: ${where} · ${summary.account.credits_left ?? '? credits'}${spent} · ${runs} in flight`;
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

const plugin: JupyterFrontEndPlugin<void> = {
  id: 'jupyterlab-rdskit:plugin',
  description: 'rdskit: status bar item, side panel, insert-code buttons and commands',
  autoStart: true,
  requires: [ICommandPalette, INotebookTracker],
  optional: [IStatusBar, ILauncher, ILabShell],
  activate: (
    app: JupyterFrontEnd,
    palette: ICommandPalette,
    tracker: INotebookTracker,
    statusBar: IStatusBar | null,
    launcher: ILauncher | null
  ) => {
    const panel = new RdsPanel(tracker);
    app.shell.add(panel, 'left', { rank: 900 });
    const open = (): void => app.shell.activateById(PANEL_ID);
    const status = new RdsStatus(open);
    if (statusBar) {
      statusBar.registerStatusItem('jupyterlab-rdskit:status', { item: status, align: 'left', rank: 900 });
    }
    const category = 'rdskit';
    const insertOrSay = (source: string): void => {
      const problem = insertCell(tracker, source);
      if (problem) {
        void InputDialog.getText({ title: `rdskit: ${problem}`, text: source });
      }
    };
    app.commands.addCommand('rdskit:open-panel', { label: 'rdskit: Open the panel', execute: open });
    app.commands.addCommand('rdskit:new-ask-cell', {
      label: 'rdskit: New %%ask cell',
      execute: () => insertOrSay('%%ask\nWhat do people complain about most?')
    });
    app.commands.addCommand('rdskit:connect-sandbox', {
      label: 'rdskit: Connect to the sandbox (inserts the cell)',
      execute: () => insertOrSay('%load_ext rdskit\n%rds connect --sandbox')
    });
    app.commands.addCommand('rdskit:set-budget', {
      label: 'rdskit: Set a budget (inserts the cell)',
      execute: async () => {
        const answer = await InputDialog.getNumber({ title: 'Budget in credits for this kernel', value: 100 });
        if (answer.button.accept && answer.value !== null && answer.value >= 0) {
          insertOrSay(`%rds budget ${Math.floor(answer.value)}`);
        }
      }
    });
    app.commands.addCommand('rdskit:starter', {
      label: 'rdskit starter notebook',
      caption: 'A new notebook with the first rdskit cells',
      execute: async () => {
        const made = (await app.commands.execute('notebook:create-new', { kernelName: 'python3' })) as NotebookPanel;
        await made.context.ready;
        const cells = [
          '%load_ext rdskit\nimport rdskit\nclient = rdskit.Client()  # the server\'s gateway; rdskit.Client.sandbox() works offline',
          'ds = client.datasets.get_or_create("Oat milk")\nquery = {"type": "prompt", "sources": ["reddit"], "search_query": "oat milk"}\nrun = client.datasets.runs.create(ds.id, search_query=query, count=50).wait()',
          'frame = client.mentions.to_frame(dataset_ids=[ds.id])\nframe.head()',
          '%%ask --dataset "Oat milk"\nWhat do people complain about most?'
        ];
        const model = made.content.model;
        if (model) {
          model.sharedModel.insertCells(0, cells.map(source => ({ cell_type: 'code', source })));
        }
      }
    });
    for (const command of ['rdskit:open-panel', 'rdskit:new-ask-cell', 'rdskit:connect-sandbox', 'rdskit:set-budget', 'rdskit:starter']) {
      palette.addItem({ command, category });
    }
    if (launcher) {
      launcher.add({ command: 'rdskit:starter', category: 'Notebook', rank: 90 });
    }
    citationKeys();

    let delay = 5000;
    let timer: number | undefined;
    let polling = false;
    let again = false;
    const poll = async (): Promise<void> => {
      window.clearTimeout(timer);
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
      } catch (error) {
        delay = 15000;
        const message = error instanceof Error ? error.message : String(error);
        panel.show_(null, message);
        status.show_(null, message);
      }
      polling = false;
      timer = window.setTimeout(() => void poll(), again ? 0 : delay);
    };
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
