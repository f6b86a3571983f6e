// docs/README.md#promises, randomized: the judge never answers 0 to anyone but the
// owner, and no field is ever lost, over seeded random interleavings of spawn,
// sessions killed and recreated under the same name (no nonce, another nonce),
// stamps, sweeps, takeovers (with and without --force), torn and corrupt
// task.json files, and several processes at once. Real CLI, private tmux server.
//
// Replay a failure: FLEET_SEED=<seed> npx vitest run test/safety/judge-random.test.ts
// Size: FLEET_SAFETY_ROUNDS (default 5), FLEET_SAFETY_STEPS (default 12).
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateTask, type Task } from '../../src/tasks';
import { makeFleetEnv, runFleet, type CliResult, type FleetEnv } from '../helpers/env';
import { prng, type Random } from '../helpers/random';
import { startServer, type TestServer } from '../helpers/tmux-server';

const SEED = process.env.FLEET_SEED ? Number(process.env.FLEET_SEED) >>> 0 : randomBytes(4).readUInt32LE(0);
const ROUNDS = Number(process.env.FLEET_SAFETY_ROUNDS) || 5;
const STEPS = Number(process.env.FLEET_SAFETY_STEPS) || 12;
const CANARY = { note: 'unknown keys survive every write', n: 7 };
const ITEM = 'the canary acceptance item';

const sidFrom = (r: Random) => {
  const h = () => r.int(0x10000).toString(16).padStart(4, '0');
  return `${h()}${h()}-${h()}-4${h().slice(1)}-8${h().slice(1)}-${h()}${h()}${h()}`;
};
const hex32 = (r: Random) => Array.from({ length: 32 }, () => r.int(16).toString(16)).join('');

interface Marks {
  nonce: string;
  stamp: string;
  task: string;
}

/** What this test believes: the task record's owner fields, and whether task.json is corrupt. */
interface Model {
  slug: string;
  pane: string;
  /** driverSid as recorded ('' = pending). */
  driverSid: string;
  /** The nonce of the last successful spawn (meaningful while pending). */
  nonce: string;
  epoch: number;
  handovers: number;
  /** Set while task.json holds garbage: the bytes written, and the last valid text to restore. */
  corrupt: { bytes: Buffer; restore: string } | null;
  /** Every session id that appeared this round (stamps, takeover askers). */
  sids: Set<string>;
}

let server: TestServer;
let fe: FleetEnv;
let pid = '';
let socketPath = '';

beforeAll(async () => {
  server = await startServer();
  fe = await makeFleetEnv(server.name);
  [socketPath = '', pid = ''] = (await server.run(['display-message', '-p', '#{socket_path}\t#{pid}'])).trim().split('\t');
  console.log(`judge-random: FLEET_SEED=${SEED} (rounds ${ROUNDS}, steps ${STEPS})`);
});

afterAll(async () => {
  await server?.kill();
  await fe?.cleanup();
});

const fleet = (args: string[], env: Record<string, string | undefined> = {}): Promise<CliResult> =>
  runFleet(args, { env: { ...fe.env, ...env } });

async function sessions(): Promise<Map<string, Marks>> {
  const out = (await server.tmux.tryRun(['list-sessions', '-F', '#{session_name}\t#{@spawn_nonce}\t#{@claude_session_id}\t#{@fleet-task}'])).stdout;
  const map = new Map<string, Marks>();
  for (const line of out.split('\n')) {
    if (!line) continue;
    const [name = '', nonce = '', stamp = '', task = ''] = line.split('\t');
    map.set(name, { nonce, stamp, task });
  }
  return map;
}

const taskFile = (slug: string) => join(fe.home, 'tasks', slug, 'task.json');

/** The owner by this test's own account: the recorded driverSid, else the stamp of the session carrying the recorded nonce. */
function modelOwner(m: Model, now: Map<string, Marks>): string | null {
  if (m.corrupt) return null;
  if (m.driverSid !== '') return m.driverSid;
  if (m.nonce === '') return null;
  const s = now.get(m.pane);
  if (!s || s.nonce !== m.nonce || s.stamp === '') return null;
  return s.stamp;
}

/** Live by docs/ownership.md#liveness with an empty registry: a tmux session carries that stamp. */
const isLive = (sid: string, now: Map<string, Marks>) => [...now.values()].some((s) => s.stamp === sid);

async function runRound(round: number): Promise<void> {
  const seed = (SEED + round * 0x9e3779b9) >>> 0;
  const r = prng(seed);
  const slug = `r${round}-${r.int(1e6)}`;
  const m: Model = { slug, pane: `op-${slug}`, driverSid: '', nonce: '', epoch: 0, handovers: 0, corrupt: null, sids: new Set() };
  const log: string[] = [];
  const fail = (what: string): never => {
    throw new Error(`${what}\n  replay: FLEET_SEED=${SEED} (round ${round}, task ${slug})\n  steps:\n    ${log.join('\n    ')}`);
  };
  const check = (ok: boolean, what: string) => {
    if (!ok) fail(what);
  };
  const sidFor = (): string => {
    const used = [...m.sids];
    const sid = used.length > 0 && r.chance(0.4) ? r.pick(used) : sidFrom(r);
    m.sids.add(sid);
    return sid;
  };
  const paneOf = async (session: string) =>
    (await server.tmux.tryRun(['display-message', '-p', '-t', `=${session}:`, '#{pane_id}'])).stdout.trim();

  // --- the steps ---
  const spawnStep = async (replace: boolean) => {
    const before = m.corrupt ? null : await readFile(taskFile(slug), 'utf8').catch(() => null);
    // The agent takes the launch prompt (the acceptance gate) as its argument, as an agent does.
    const res = await fleet(['spawn', slug, '--cmd', "sh -c 'exec sleep 86400' agent", ...(replace ? ['--replace'] : []), ...(before === null && !m.corrupt ? ['--accept', ITEM] : [])]);
    log.push(`spawn${replace ? ' --replace' : ''} -> ${res.exitCode}`);
    if (res.exitCode === 0) {
      check(!m.corrupt, `spawn succeeded over a corrupt task.json: ${res.stdout}`);
      const s = (await sessions()).get(m.pane);
      check(!!s && /^[0-9a-f]{32}$/.test(s.nonce), `spawn left no nonce on ${m.pane}: ${JSON.stringify(s)}`);
      m.nonce = (s as Marks).nonce;
      m.driverSid = '';
    } else if (m.corrupt) {
      check((await readFile(taskFile(slug))).equals(m.corrupt.bytes), `a failed spawn changed the corrupt task.json`);
    }
  };
  const recreate = async (variant: 'none' | 'other' | 'gone') => {
    await server.tmux.tryRun(['kill-session', '-t', `=${m.pane}:`]);
    if (variant !== 'gone') {
      const set = variant === 'other' ? [['set-option', '-t', `=${m.pane}:`, '@spawn_nonce', hex32(r)], ['set-option', '-t', `=${m.pane}:`, '@fleet-task', slug]] : [];
      await server.tmux.chain([['new-session', '-d', '-s', m.pane, 'sleep 86400'], ...set]);
      const s = (await sessions()).get(m.pane);
      check(!!s && s.stamp === '' && (variant === 'none' ? s.nonce === '' : s.nonce !== '' && s.nonce !== m.nonce), `recreating ${m.pane} failed: ${JSON.stringify(s)}`);
    }
    log.push(`session ${m.pane} ${variant === 'gone' ? 'killed' : `killed and recreated (${variant === 'none' ? 'no nonce' : 'another nonce'})`}`);
    // The reused name usually gets an agent of its own at once.
    if (variant !== 'gone' && r.chance(0.7)) await stampStep(sidFor());
  };
  const stampStep = async (sid: string) => {
    const pane = await paneOf(m.pane);
    if (!pane) {
      log.push(`stamp ${sid.slice(0, 8)}: no session`);
      return;
    }
    const res = await fleet(['stamp', '--sid', sid], { TMUX: `${socketPath},${pid},0`, TMUX_PANE: pane });
    log.push(`stamp ${sid.slice(0, 8)} in ${m.pane} -> ${res.exitCode}`);
    check(res.exitCode === 0 && res.stdout === '', `stamp must exit 0 and print nothing: ${res.exitCode} ${res.stdout}`);
    const s = (await sessions()).get(m.pane);
    // A stamp resolves the pending task of its session at once when the session carries the recorded nonce.
    if (!m.corrupt && m.driverSid === '' && m.nonce !== '' && s?.nonce === m.nonce && s.task === slug) m.driverSid = sid;
  };
  const sweepStep = async () => {
    const now = await sessions();
    const res = await fleet(['sweep']);
    log.push(`sweep -> ${res.exitCode}`);
    const s = now.get(m.pane);
    if (!m.corrupt && m.driverSid === '' && m.nonce !== '' && s?.nonce === m.nonce && s.stamp !== '') m.driverSid = s.stamp;
  };
  const takeoverStep = async (sid: string, force: boolean) => {
    const now = await sessions();
    const owner = modelOwner(m, now);
    const res = await fleet(['takeover', slug, '--as', sid, ...(force ? ['--force'] : [])]);
    log.push(`takeover --as ${sid.slice(0, 8)}${force ? ' --force' : ''} (model owner ${owner?.slice(0, 8) ?? 'none'}) -> ${res.exitCode}`);
    if (m.corrupt) {
      check(res.exitCode !== 0, `takeover succeeded over a corrupt task.json`);
      return;
    }
    if (!force && owner !== null && owner !== sid && isLive(owner, now)) {
      check(res.exitCode === 9, `takeover without --force from the live owner ${owner} was not refused: exit ${res.exitCode} ${res.stdout} ${res.stderr}`);
    }
    // Exit 0: the asker is the Driver now (already was: nothing written).
    if (res.exitCode === 0 && owner !== sid) m.driverSid = sid;
  };
  const corruptStep = async () => {
    const restore = await readFile(taskFile(slug), 'utf8');
    const kind = r.pick(['truncate', 'garbage', 'schema']);
    const bytes =
      kind === 'truncate'
        ? Buffer.from(restore.slice(0, r.int(restore.length - 1)))
        : kind === 'garbage'
          ? randomBytes(1 + r.int(64))
          : Buffer.from(JSON.stringify({ ...JSON.parse(restore), driverSid: 42 }));
    await writeFile(taskFile(slug), bytes);
    m.corrupt = { bytes, restore };
    log.push(`task.json ${kind === 'truncate' ? `torn (${bytes.length} of ${restore.length} bytes)` : kind === 'garbage' ? 'overwritten with garbage' : 'made invalid (driverSid: 42)'}`);
  };
  const restoreStep = async () => {
    await writeFile(taskFile(slug), (m.corrupt as { restore: string }).restore);
    m.corrupt = null;
    log.push('task.json restored');
  };
  const parallelStep = async () => {
    const now = await sessions();
    const before = m.corrupt ? null : (JSON.parse(await readFile(taskFile(slug), 'utf8')) as Task);
    const ops: { label: string; run: () => Promise<CliResult>; takeover?: string; stamp?: string }[] = [];
    const n = 2 + r.int(3);
    const pane = await paneOf(m.pane);
    for (let i = 0; i < n; i++) {
      const kind = r.pick(['takeover', 'takeover', 'sweep', 'stamp']);
      if (kind === 'takeover') {
        const sid = sidFor();
        ops.push({ label: `takeover --force --as ${sid.slice(0, 8)}`, takeover: sid, run: () => fleet(['takeover', slug, '--as', sid, '--force']) });
      } else if (kind === 'stamp' && pane) {
        const sid = sidFor();
        ops.push({ label: `stamp ${sid.slice(0, 8)}`, stamp: sid, run: () => fleet(['stamp', '--sid', sid], { TMUX: `${socketPath},${pid},0`, TMUX_PANE: pane }) });
      } else ops.push({ label: 'sweep', run: () => fleet(['sweep']) });
    }
    const results = await Promise.all(ops.map((o) => o.run()));
    log.push(`at once: ${ops.map((o, i) => `${o.label} -> ${results[i]?.exitCode}`).join(', ')}`);
    if (m.corrupt) {
      check((await readFile(taskFile(slug))).equals(m.corrupt.bytes), 'a write landed on a corrupt task.json');
      check(ops.every((o, i) => !o.takeover || results[i]?.exitCode !== 0), 'a takeover succeeded over a corrupt task.json');
      return;
    }
    const after = JSON.parse(await readFile(taskFile(slug), 'utf8')) as Task;
    const won = ops.filter((o, i) => o.takeover && results[i]?.exitCode === 0).map((o) => o.takeover as string);
    // Who may hold the task now: the owner before, a takeover that succeeded, or (while pending with the nonce) a stamp.
    const pendingOk = m.driverSid === '' && m.nonce !== '' && now.get(m.pane)?.nonce === m.nonce;
    const stamps = ops.filter((o) => o.stamp).map((o) => o.stamp as string);
    const allowed = new Set([m.driverSid, ...won, ...(pendingOk ? [now.get(m.pane)?.stamp ?? '', ...stamps] : [])]);
    allowed.delete('');
    const holder = after.driverSid ?? '';
    check(holder === m.driverSid || allowed.has(holder), `after concurrent writers the task is held by ${holder}, none of ${[...allowed].join(', ')}`);
    // No lost update: every successful takeover that changed hands left its handover.
    const newHandovers = (after.handovers?.length ?? 0) - (before?.handovers?.length ?? 0);
    const newEpochs = (after.driverEpoch ?? 0) - (before?.driverEpoch ?? 0);
    check(newHandovers === newEpochs, `handovers (+${newHandovers}) and driverEpoch (+${newEpochs}) disagree`);
    check(newHandovers <= won.length, `${won.length} takeovers succeeded but ${newHandovers} handovers were recorded`);
    const newTo = new Set((after.handovers ?? []).slice(before?.handovers?.length ?? 0).map((h) => h.to));
    const ownerBefore = modelOwner(m, now);
    // A winner that already owned the task when it ran wrote nothing: the owner before, or a concurrent stamp that filled it.
    for (const w of won) check(w === ownerBefore || (pendingOk && stamps.includes(w)) || newTo.has(w), `the takeover by ${w} succeeded but left no handover (lost update)`);
    m.driverSid = holder;
    m.epoch = after.driverEpoch ?? 0;
    m.handovers = after.handovers?.length ?? 0;
  };

  // --- the checks after every step ---
  const verify = async () => {
    const now = await sessions();
    const owner = modelOwner(m, now);
    if (m.corrupt) {
      check((await readFile(taskFile(slug))).equals(m.corrupt.bytes), 'a corrupt task.json was overwritten');
    } else {
      const text = await readFile(taskFile(slug), 'utf8');
      let t: Task & Record<string, unknown>;
      try {
        t = JSON.parse(text);
      } catch {
        return fail(`task.json is torn: ${JSON.stringify(text.slice(0, 200))}`);
      }
      check(JSON.stringify(t['x-canary']) === JSON.stringify(CANARY), `x-canary lost or changed: ${JSON.stringify(t['x-canary'])}`);
      check((t.acceptance ?? []).some((a) => a.text === ITEM), `acceptance item lost: ${JSON.stringify(t.acceptance)}`);
      check((t.driverSid ?? '') === m.driverSid, `driverSid is ${JSON.stringify(t.driverSid)}, the model says ${JSON.stringify(m.driverSid)}`);
      if (m.driverSid !== '') check(t.spawnNonce === undefined, `spawnNonce kept beside driverSid ${m.driverSid}`);
      else check(t.spawnNonce === m.nonce, `spawnNonce ${t.spawnNonce} is not the nonce of the last spawn ${m.nonce}`);
      check((t.handovers?.length ?? 0) >= m.handovers, `handovers lost: ${t.handovers?.length ?? 0} < ${m.handovers}`);
      check((t.driverEpoch ?? 0) >= m.epoch, `driverEpoch went back: ${t.driverEpoch ?? 0} < ${m.epoch}`);
      m.handovers = t.handovers?.length ?? 0;
      m.epoch = t.driverEpoch ?? 0;
    }
    const askers = new Set<string>([...m.sids, sidFrom(r), '']);
    for (const s of now.values()) if (s.stamp) askers.add(s.stamp);
    if (owner) askers.add(owner);
    const list = [...askers];
    const answers = await Promise.all(list.map((a) => fleet(['owner', slug, ...(a ? ['--as', a] : []), '--json'])));
    list.forEach((asker, i) => {
      const res = answers[i] as CliResult;
      check([0, 5, 9].includes(res.exitCode), `owner --as ${asker || '(nobody)'} exited ${res.exitCode}: ${res.stderr}`);
      if (res.exitCode === 0) {
        check(asker !== '' && asker === owner, `the judge answered 0 to ${asker || '(nobody)'}; the owner is ${owner ?? 'nobody'}: ${res.stdout}`);
      }
      if (owner !== null && asker === owner) check(res.exitCode === 0, `the owner ${owner} was not told 0: ${res.stdout}${res.stderr}`);
      if (m.corrupt) check(res.exitCode === 5, `a corrupt task.json must give 5, gave ${res.exitCode}`);
    });
  };

  // The first spawn mints the task; then an unknown key, written through the store.
  await spawnStep(false);
  check(m.nonce !== '', 'the first spawn failed');
  await updateTask(fe.home, slug, (cur) => (cur ? { ...cur, 'x-canary': CANARY } : null));
  log.push('x-canary written');
  await verify();

  for (let step = 0; step < STEPS; step++) {
    // The pending window (after a spawn, before the fill) is where names and nonces
    // matter most, so the weights follow the state: a decided task is respawned
    // often, a freshly spawned session is often killed or recreated before its
    // stamp, and a recreated session is often stamped.
    const s = (await sessions()).get(m.pane);
    const pending = m.driverSid === '' && !m.corrupt;
    const fresh = pending && s?.nonce === m.nonce && s.stamp === '';
    const impostor = pending && !!s && s.nonce !== m.nonce;
    const w = {
      spawn: pending ? 0.06 : 0.22,
      recreate: fresh ? 0.3 : 0.1,
      stamp: impostor ? 0.4 : 0.18,
      sweep: 0.08,
      takeover: 0.14,
      corrupt: m.corrupt ? 0 : 0.08,
      parallel: 0.12,
    };
    let choice = r() * Object.values(w).reduce((a, b) => a + b, 0);
    const pickStep = (Object.keys(w) as (keyof typeof w)[]).find((k) => (choice -= w[k]) < 0) ?? 'parallel';
    if (m.corrupt && r.chance(0.4)) await restoreStep();
    else if (pickStep === 'spawn') await spawnStep(r.chance(0.85));
    else if (pickStep === 'recreate') await recreate(r.pick(['none', 'other', 'other', 'gone'] as const));
    else if (pickStep === 'stamp') await stampStep(sidFor());
    else if (pickStep === 'sweep') await sweepStep();
    else if (pickStep === 'takeover') await takeoverStep(sidFor(), r.chance(0.5));
    else if (pickStep === 'corrupt') await corruptStep();
    else await parallelStep();
    await verify();
  }
  if (m.corrupt) {
    await restoreStep();
    await verify();
  }
  if (process.env.FLEET_SAFETY_VERBOSE === '1') console.log(`round ${round} (${slug}):\n  ${log.join('\n  ')}`);
}

describe(`the judge under random interleavings (FLEET_SEED=${SEED})`, () => {
  for (let round = 0; round < ROUNDS; round++) {
    it(`round ${round}: never 0 to anyone but the owner; no field lost`, { timeout: 120_000 }, async () => {
      await expect(runRound(round)).resolves.toBeUndefined();
    });
  }
});
