/**
 * rdskit in JupyterLab: a status bar item, a side panel (datasets, their runs and live
 * status, credits, tracking agents), insert-code buttons, palette commands, a launcher
 * card, and keyboard help for the answer view's citation cards.
 *
 * It reads GET <base>/rdskit/lab/summary (rdskit.jupyter.lab_api: Jupyter server auth,
 * upstream reads through the gateway's shared request bucket, reused for `next_poll`
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
interface ISummary {
  connected: { mode: string; upstream: string };
  account: { email: string | null; team: string | null; plan: string | null; credits_left: string | null };
  datasets: IDataset[];
  runs_in_flight: number;
  tracking_agents: number;
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

async function fetchSummary(): Promise<ISummary> {
  const settings = ServerConnection.makeSettings();
  const url = settings.baseUrl.replace(/\/?$/, '/') + 'rdskit/lab/summary';
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
    head.appendChild(el('div', 'rds-lab-where', `Connected to ${summary.connected.mode === 'sandbox' ? 'the shared sandbox' : 'the service'} (${summary.connected.upstream})`));
    const who = [summary.account.email, summary.account.team, summary.account.plan && `plan ${summary.account.plan}`].filter(Boolean).join(' · ');
    head.appendChild(el('div', 'rds-lab-who', who));
    head.appendChild(el('div', 'rds-lab-credits', `Credits left: ${summary.account.credits_left ?? 'unknown'}`));
    head.appendChild(el('div', 'rds-lab-agents', `Tracking agents: ${summary.tracking_agents} · runs in flight: ${summary.runs_in_flight}`));
    root.appendChild(head);
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
    root.appendChild(el('div', 'rds-lab-foot', `Shared request bucket: ${summary.rate_limit} req/s, ${summary.queued} queued`));
  }
}

class RdsStatus extends Widget {
  constructor(onClick: () => void) {
    super();
    this.addClass('rds-lab-status');
    this.node.textContent = 'rdskit';
    this.node.title = 'rdskit: click to open the panel';
    this.node.onclick = onClick;
  }

  show_(summary: ISummary | null, error: string | null): void {
    if (error || !summary) {
      this.node.textContent = 'rdskit: not connected';
      return;
    }
    const where = summary.connected.mode === 'sandbox' ? 'sandbox' : summary.connected.upstream;
    const runs = summary.runs_in_flight === 1 ? '1 run' : `${summary.runs_in_flight} runs`;
    this.node.textContent = `rdskit: ${where} · ${summary.account.credits_left ?? '? credits'} · ${runs} in flight`;
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
    const poll = async (): Promise<void> => {
      try {
        const summary = await fetchSummary();
        delay = Math.max(1000, summary.next_poll * 1000);
        panel.show_(summary, null);
        status.show_(summary, null);
      } catch (error) {
        delay = 15000;
        const message = error instanceof Error ? error.message : String(error);
        panel.show_(null, message);
        status.show_(null, message);
      }
      window.setTimeout(() => void poll(), delay);
    };
    void poll();
  }
};

export default plugin;
