// The supervisor's render step: from one tmux snapshot to the segment values
// of every session and the hop toasts. Reads files; starts no process.
import { HopTracker } from '../registry/hop';
import type { TmuxSnapshot } from '../tmux/snapshot';
import { agentSegment, hopSegment, ownerSegment, styleFormats, stylesFrom } from './segments';
import type { Render, RenderHint, Rendered, SegmentOption } from './supervisor';
import { CachedFleetData, computeView, type FleetData } from './view';

/** The extra formats the supervisor's snapshot asks for: style options and the poll interval. */
export function supervisorFormats(): Record<string, string> {
  return { ...styleFormats(), interval: '#{@fleet-interval}' };
}

export interface RenderHooks {
  /** Whether each pid named by the registry rows existed (the supervisor watches these for deaths). */
  onPids?: (pidsExist: ReadonlyMap<number, boolean>) => void;
  /** The tasks and rows of every wake (the supervisor records Drivers' processes from them). */
  onData?: (data: FleetData) => void;
}

export function makeRender(home: string, registry: string, hooks: RenderHooks = {}): Render {
  const tracker = new HopTracker();
  const source = new CachedFleetData(home, registry);
  return async (snapshot: TmuxSnapshot, hint: RenderHint): Promise<Rendered> => {
    const data = await source.load(!hint.registryOnly, hint.registryChanged);
    if (data.pidsExist) hooks.onPids?.(data.pidsExist);
    hooks.onData?.(data);
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
