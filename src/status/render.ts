// The supervisor's render step: from one tmux snapshot to the segment values
// of every session and the hop toasts. Reads files; starts no process.
import { HopTracker } from '../registry/hop';
import type { TmuxSnapshot } from '../tmux/snapshot';
import { agentSegment, hopSegment, ownerSegment, styleFormats, stylesFrom } from './segments';
import type { Render, RenderHint, Rendered, SegmentOption } from './segment-writes';
import { CachedFleetData, computeView, type FleetData } from './view';

/** The extra formats the supervisor's snapshot asks for: style options and the poll interval. */
export function supervisorFormats(): Record<string, string> {
  return { ...styleFormats(), interval: '#{@fleet-interval}' };
}

/** `onData`: the tasks, rows and pid checks of every wake (the supervisor watches the pids for deaths and records Drivers' processes). */
export function makeRender(home: string, registry: string, onData?: (data: FleetData) => void): Render {
  const tracker = new HopTracker();
  const source = new CachedFleetData(home, registry);
  return async (snapshot: TmuxSnapshot, hint: RenderHint): Promise<Rendered> => {
    const data = await source.load(!hint.registryOnly, hint.registryChanged);
    onData?.(data);
    const view = computeView(snapshot, data, tracker);
    const styles = stylesFrom(snapshot.config);
    const values = new Map<string, Record<SegmentOption, string>>();
    for (const s of view.sessions) {
      values.set(s.session, {
        '@fleet-owner': s.slug && s.decision ? ownerSegment(s.slug, s.decision, styles) : '',
        '@fleet-hop': hopSegment(s.hop, styles),
        '@fleet-agent': agentSegment(s.hop, styles),
      });
    }
    return { values, toasts: view.events.map((e) => ({ session: e.session, text: e.text })) };
  };
}
