// One look at the fleet for the commands that show it (`tasks`, the dashboard,
// `attention`, `send`): one tmux call, the task files, the registry.
import { HopTracker } from '../registry/hop';
import { errorMessage, FleetError } from '../errors';
import { UNREACHABLE_SERVER_FIX, type Tmux } from '../tmux/client';
import { readSnapshot, type TmuxSnapshot } from '../tmux/snapshot';
import { type FleetData, loadFleetData, loadRegistryData } from './data';
import { type FleetView, computeView, spawnLocks } from './view';

/**
 * `tasks`, the dashboard and `attention` without the sessions: with tasks to
 * judge, no verdict can be told (a live owner would show as 9 other), so each
 * says so and lists nothing (exit 1). No tasks: nothing to tell wrong.
 */
export function assertVerdictsTellable(view: FleetView, tmux: Tmux, command: string): void {
  if (view.tmuxError && view.tasks.some((t) => t.task !== null)) {
    throw new FleetError(`${command}: ${tmux.describeServer()} is unreachable, so no verdict can be told: ${view.tmuxError.replace(/^tmux \S+ on [^:]+: /, '')}; fix: ${UNREACHABLE_SERVER_FIX}`);
  }
}

/** One look at the fleet, for `tasks`, the dashboard and `attention`: one tmux call, the task files, the registry. */
export async function readFleet(tmux: Tmux, home: string, registry: string): Promise<{ view: FleetView; snap: TmuxSnapshot | null; data: FleetData }> {
  // The registry is read meanwhile; the task files after the snapshot's spawn locks (spawnLocks).
  const rows = loadRegistryData(registry);
  const snapResult = await readSnapshot(tmux).then(
    (snap) => ({ snap: snap as TmuxSnapshot | null, error: null as string | null }),
    (err: unknown) => ({ snap: null, error: errorMessage(err) }),
  );
  const spawnLocked = spawnLocks(home, snapResult.snap, null);
  const data = await loadFleetData(home, registry, rows);
  const view = computeView(snapResult.snap, data, new HopTracker(), { agentGone: new Set(), spawnLocked });
  return { view: { ...view, tmuxError: snapResult.error }, snap: snapResult.snap, data };
}

export async function readFleetView(tmux: Tmux, home: string, registry: string): Promise<FleetView> {
  return (await readFleet(tmux, home, registry)).view;
}
