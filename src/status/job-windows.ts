// A window opened for a background job (`<agent cmd> attach <id>`, marked by
// the dashboard with the window option @fleet-job) shows that job in the
// status line like any Driver (docs/status.md#background-jobs): the verdict of
// the task whose Driver parked on it, the hop from the tab, and the job's own
// state. They are window options, which tmux reads before the session's.
import { judgeFromSnapshot } from '../ownership/judge';
import { pickBest, shortSid } from '../registry/follow';
import { agentStateOf } from '../registry/hop';
import type { LiveRow, Liveness } from '../registry/liveness';
import { ownerSid } from '../tasks/schema';
import type { TaskEntry } from '../tasks/store';
import type { PaneSnap } from '../tmux/snapshot';
import { JOB_ID_RE } from '../registry/job-id';
import { rowsByJob, rowsByParkedJob } from '../registry/row-index';
import type { WindowValues } from './segment-writes';
import { agentSegment, iconOnly, ownerSegment, segment, type Styles } from './segments';

type JobPane = Pick<PaneSnap, 'session' | 'window' | 'job'>;

/** The panes marked with a job, per snapshot's pane list: a wake for changed rows keeps the snapshot, so it does not pass over every pane again. */
const jobPanesCache = new WeakMap<readonly JobPane[], readonly JobPane[]>();

function jobPanes(panes: readonly JobPane[]): readonly JobPane[] {
  let marked = jobPanesCache.get(panes);
  if (marked === undefined) {
    marked = panes.filter((p) => p.job !== '' && JOB_ID_RE.test(p.job));
    jobPanesCache.set(panes, marked);
  }
  return marked;
}

export function jobWindowValues(
  panes: readonly JobPane[],
  data: { tasks: readonly TaskEntry[]; rows: readonly LiveRow[]; registryReadable: boolean; recorded: ReadonlyMap<string, Liveness> },
  styles: Styles,
): WindowValues {
  const out: WindowValues = new Map();
  for (const p of jobPanes(panes)) {
    if (out.has(p.window)) continue;
    const job = pickBest(rowsByJob(data.rows).get(p.job) ?? []);
    const tab = pickBest(rowsByParkedJob(data.rows).get(p.job) ?? []);
    const tabSid = tab?.row.sessionId ?? '';
    const entry = data.tasks.find((t) => t.task && ((tabSid !== '' && ownerSid(t.task) === tabSid) || t.task.driverJobId === p.job));
    let owner = '';
    if (entry?.task) {
      const d = judgeFromSnapshot({
        slug: entry.slug,
        task: entry.task,
        asker: ownerSid(entry.task),
        sessions: null,
        registry: { readable: data.registryReadable, rows: data.rows, recorded: data.recorded },
      });
      owner = ownerSegment(entry.slug, d, styles);
    }
    const hopText = job && tabSid ? `${shortSid(tabSid)} → ${shortSid(job.row.sessionId)}` : '';
    const jobState = job ? agentStateOf(job) : null;
    out.set(p.window, {
      session: p.session,
      values: {
        '@fleet-owner': owner,
        '@fleet-hop': segment(styles.hop, hopText),
        '@fleet-agent': jobState ? agentSegment(jobState, styles) : segment(styles.unknown, `job ${p.job} gone`),
        '@fleet-hop-short': iconOnly(styles.hop, hopText),
        '@fleet-agent-short': jobState ? agentSegment(jobState, styles, true) : iconOnly(styles.unknown, 'gone'),
      },
    });
  }
  return out;
}
