import type { Context } from '../context';
import { FleetError } from '../errors';
import type { Args } from './spec';

// Placeholder until its issue lands.
export async function run(_args: Args, _ctx: Context): Promise<number> {
  throw new FleetError('doctor: not implemented yet');
}
