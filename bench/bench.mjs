#!/usr/bin/env node
// `npm run bench`: the budgets of docs/budgets.md, measured on this machine, written
// to bench/results.md. Drives the built helper (dist/tmux-fleet.cjs). Every
// tmux server is private (`-L fleet-bench-<random> -f /dev/null`) and killed at
// the end, also on failure. Each figure is a ratio or a count taken in one run.
//
// Parts to run by letter, as arguments or BENCH_ONLY (`node bench/bench.mjs g`, BENCH_ONLY=ag; default: abcdefghi).
// Environment: BENCH_QUICK=1 (short runs), BENCH_RUNS (owner runs per side, 40),
// BENCH_BIN (the build to measure, default dist/tmux-fleet.cjs: another worktree's, for before/after figures),
// BENCH_OUT (the results file, default bench/results.md),
// BENCH_BEFORE_BIN (an older build's dist/tmux-fleet.cjs, timed in the same run as this one),
// BENCH_IDLE_S / BENCH_CHURN_S (supervisor windows, 60 s each), BENCH_TREE_S (20 s),
// BENCH_SUPERVISOR_NODE_ARGS (extra node flags for the supervisor, e.g. --cpu-prof),
// BENCH_SCALE_S (part g's churn seconds per fleet, 30), BENCH_SCALE_RATE (changes per second, 10), BENCH_SCALE_LATENCY_N (40),
// BENCH_SCALE_IDLE_S (part g's idle window per fleet, 20), BENCH_NEAR_IDLE_S (its nearly idle window, 30),
// BENCH_SCALE_IDLE_ONLY=1 (part g's idle windows alone: with BENCH_SUPERVISOR_NODE_ARGS=--cpu-prof, a profile of the poll),
// BENCH_SCALE_BIG_ONLY=1 (part g: the large fleet alone, then the big rows' peak RSS), BENCH_WAIT_ROUNDS (part i, 20), BENCH_WAIT_SESSIONS (part i: 50 or 500 only),
// BENCH_KEEP=1 (keep the work directory, with the supervisor's log).
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, linkSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { cpus, homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// Node reads NODE_EXTRA_CA_CERTS at every start, before any script runs: with a
// system bundle that is tens of milliseconds added to `node -e 0` and to every
// helper run alike, which shrinks every ratio below. The budgets are judged
// without it; part a also reports the figures with it, when the caller has it.
const CALLER_CA_CERTS = process.env.NODE_EXTRA_CA_CERTS;
delete process.env.NODE_EXTRA_CA_CERTS;

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const BIN = process.env.BENCH_BIN || join(root, 'dist', 'tmux-fleet.cjs');
const QUICK = process.env.BENCH_QUICK === '1';
const num = (name, dflt, quick) => {
  const v = Number(process.env[name]);
  return Number.isFinite(v) && v > 0 ? v : QUICK ? quick : dflt;
};
const RUNS = num('BENCH_RUNS', 40, 10);
const IDLE_S = num('BENCH_IDLE_S', 60, 10);
const CHURN_S = num('BENCH_CHURN_S', 60, 10);
const TREE_S = num('BENCH_TREE_S', 20, 6);
const REDRAWS = num('BENCH_REDRAWS', 200, 50);

/**
 * Node's flags for the supervisor, as the plugin of the build measured starts it (SUPERVISOR_NODE_FLAGS in its
 * scripts/helpers.sh; none in a build without them), then BENCH_SUPERVISOR_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=DIR").
 */
const helpersOfBin = join(dirname(BIN), '..', 'scripts', 'helpers.sh');
const PLUGIN_SUPERVISOR_FLAGS = existsSync(helpersOfBin) ? (/^SUPERVISOR_NODE_FLAGS='([^']*)'/m.exec(readFileSync(helpersOfBin, 'utf8'))?.[1] ?? '') : '';
const supervisorNodeArgs = () => `${PLUGIN_SUPERVISOR_FLAGS} ${process.env.BENCH_SUPERVISOR_NODE_ARGS || ''}`.split(' ').filter(Boolean);
/** The environment the plugin adds for the supervisor (SUPERVISOR_ENV in its scripts/helpers.sh: NAME=value words). */
const PLUGIN_SUPERVISOR_ENV = Object.fromEntries(
  (existsSync(helpersOfBin) ? (/^SUPERVISOR_ENV='([^']*)'/m.exec(readFileSync(helpersOfBin, 'utf8'))?.[1] ?? '') : '')
    .split(' ')
    .filter((w) => /^[A-Z_]+=/.test(w))
    .map((w) => [w.slice(0, w.indexOf('=')), w.slice(w.indexOf('=') + 1)]),
);

const TMUX = (spawnSync('sh', ['-c', 'command -v tmux'], { encoding: 'utf8' }).stdout || '').trim();
const STRACE = (spawnSync('sh', ['-c', 'command -v strace'], { encoding: 'utf8' }).stdout || '').trim();
if (!TMUX) {
  console.error('bench: tmux is not installed');
  process.exit(1);
}
if (!existsSync(BIN)) {
  console.error(`bench: ${BIN} is missing (npm run build)`);
  process.exit(1);
}

const work = mkdtempSync(join(tmpdir(), 'fleet-bench-'));
const servers = new Set();
const children = new Set();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function cleanup() {
  for (const c of children) {
    try {
      process.kill(c.pid, 'SIGKILL');
    } catch {}
  }
  for (const s of servers) {
    spawnSync(TMUX, ['-L', s, 'kill-server'], { stdio: 'ignore' });
    rmSync(socketFile(s), { force: true });
  }
  if (process.env.BENCH_KEEP) console.log(`kept ${work}`);
  else rmSync(work, { recursive: true, force: true });
}
process.on('exit', cleanup);
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => process.exit(130));

// ---------------------------------------------------------------- helpers
function tmux(server, args, opts = {}) {
  const r = spawnSync(TMUX, ['-L', server, ...args], { encoding: 'utf8', ...opts });
  if (r.status !== 0 && !opts.allowFail) throw new Error(`tmux ${args.join(' ')}: ${r.stderr}`);
  return (r.stdout || '').replace(/\n$/, '');
}
/** Several tmux commands in one call (argv with ';' separators). */
function tmuxChain(server, commands) {
  for (let i = 0; i < commands.length; i += 200) {
    const argv = commands.slice(i, i + 200).flatMap((c, j) => (j === 0 ? c : [';', ...c]));
    tmux(server, argv);
  }
}
function startServer(env = {}) {
  const name = `fleet-bench-${randomBytes(5).toString('hex')}`;
  servers.add(name);
  tmux(name, ['-f', '/dev/null', 'new-session', '-d', '-s', 'keeper', '-x', '160', '-y', '40', 'sleep 86400'], { env: { ...process.env, ...env } });
  const [socketPath, pid] = tmux(name, ['display-message', '-p', '#{socket_path}\t#{pid}']).split('\t');
  return { name, socketPath, pid: Number(pid) };
}
// tmux leaves its socket file behind when its server is killed.
const socketFile = (name) => join(process.env.TMUX_TMPDIR || '/tmp', `tmux-${process.getuid()}`, name);
function killServer(s) {
  tmux(s.name, ['kill-server'], { allowFail: true });
  rmSync(socketFile(s.name), { force: true });
  servers.delete(s.name);
}
/** A client attached for real: an outer private server whose pane attaches to `server`. */
function attachClient(server, session) {
  const outer = startServer();
  tmux(outer.name, ['new-session', '-d', '-s', 'view', '-x', '160', '-y', '12', `env -u TMUX ${TMUX} -L ${server.name} attach-session -t '=${session}:'`]);
  return outer;
}
async function waitFor(fn, what, ms = 10_000) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`bench: timed out waiting for ${what}`);
    await sleep(50);
  }
}
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const settle = new Int32Array(new SharedArrayBuffer(4));
function timeRun(argv, env) {
  // A pause first: a tmux server still busy after the previous run's client left would slow this one.
  Atomics.wait(settle, 0, 0, 40);
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, argv, { stdio: 'ignore', env });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  return { ms, status: r.status };
}
function fleetEnv(home, extra = {}) {
  const env = { ...process.env, TMUX_FLEET_HOME: home, ...extra };
  delete env.TMUX;
  delete env.TMUX_FLEET_DEBUG;
  delete env.TMUX_PANE;
  delete env.CLAUDE_CODE_SESSION_ID;
  return env;
}
function fleet(args, env) {
  return spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env });
}
const sid = (n) => {
  const h = n.toString(16).padStart(12, '0');
  return `${h.slice(0, 8)}-0000-4000-8000-${h.padStart(12, '0')}`;
};
const nonce = () => randomBytes(16).toString('hex');
function writeTask(home, slug, fields) {
  const dir = join(home, 'tasks', slug);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const now = new Date().toISOString();
  writeFileSync(join(dir, 'task.json'), JSON.stringify({ slug, createdAt: now, updatedAt: now, ...fields }, null, 2), { mode: 0o600 });
}
function statFields(pid) {
  const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // fields after ")" start at field 3 (state); ppid is field 4, utime 14, stime 15, cutime 16, cstime 17.
  return s.slice(s.lastIndexOf(')') + 2).split(' ');
}
/**
 * A process's CPU: its own, and in cutime/cstime that of its children, those
 * it reaped and those still running (the supervisor's shell, which starts its
 * tmux clients and reaps them: their CPU is in the shell's own cutime).
 */
function procStat(pid) {
  const f = statFields(pid);
  const out = { utime: Number(f[11]), stime: Number(f[12]), cutime: Number(f[13]), cstime: Number(f[14]) };
  for (const { fields: c } of childrenOf(pid)) {
    out.cutime += Number(c[11]) + Number(c[13]);
    out.cstime += Number(c[12]) + Number(c[14]);
  }
  return out;
}
/** The running children of `pid`, each with its stat fields. */
function childrenOf(pid) {
  const out = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const fields = statFields(name);
      if (Number(fields[1]) === pid) out.push({ pid: Number(name), fields });
    } catch {}
  }
  return out;
}
function vmRssKb(pid) {
  const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) : NaN;
}
const CLK_TCK = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;
/** Nanoseconds a process's threads have run (schedstat: exact, where utime and stime count 10 ms ticks). */
function runNs(pid) {
  let ns = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {}
  }
  return ns;
}
/**
 * A process's CPU in ms, as exactly as /proc tells it: its threads' run time
 * (schedstat, ns), with its children's still running (the supervisor's shell)
 * the same way; only the children already reaped (the tmux clients that shell
 * ran) are in ticks (cutime/cstime). For the small figures of an idle fleet,
 * where a 10 ms tick is a large part of a 20 s window.
 */
function cpuMs(pid) {
  const f = statFields(pid);
  let ms = runNs(pid) / 1e6 + ((Number(f[13]) + Number(f[14])) / CLK_TCK) * 1000;
  for (const { pid: child, fields: c } of childrenOf(pid)) {
    try {
      ms += runNs(child) / 1e6 + ((Number(c[13]) + Number(c[14])) / CLK_TCK) * 1000;
    } catch {}
  }
  return ms;
}

/** Starts strace on pids; returns stop() -> lines of the trace. */
async function traceStart(pids, calls) {
  const out = join(work, `strace-${randomBytes(3).toString('hex')}.txt`);
  const args = ['-f', '-qq', '-e', `trace=${calls}`, '-o', out, ...pids.flatMap((p) => ['-p', String(p)])];
  const child = spawn(STRACE, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  children.add(child);
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  // strace attaches before it writes anything; give it a moment.
  await sleep(500);
  if (child.exitCode !== null) throw new Error(`strace failed: ${err}`);
  return async () => {
    child.kill('SIGINT');
    await new Promise((r) => child.once('exit', r));
    children.delete(child);
    return existsSync(out) ? readFileSync(out, 'utf8').split('\n') : [];
  };
}
const execveCount = (lines) => lines.filter((l) => /\bexecve\(/.test(l)).length;
const forkCount = (lines) => lines.filter((l) => /\b(clone3?|v?fork)\(/.test(l) && !/resumed/.test(l)).length;

// Fake registry: 200 rows; a few point at live `sleep` processes, the rest at dead pids.
function makeRegistry(dir, count, liveSids) {
  mkdirSync(dir, { recursive: true });
  const sleeps = [];
  for (let i = 0; i < liveSids.length; i++) {
    const c = spawn('sleep', ['86400'], { stdio: 'ignore' });
    children.add(c);
    sleeps.push(c.pid);
  }
  const rows = [];
  for (let i = 0; i < count; i++) {
    const live = i < liveSids.length;
    const pid = live ? sleeps[i] : 4_000_000 + i; // above pid_max: dead
    const row = { pid, sessionId: live ? liveSids[i] : sid(900_000 + i), kind: 'interactive', status: i % 3 ? 'idle' : 'busy', cwd: '/tmp', updatedAt: Date.now() };
    writeFileSync(join(dir, `${pid}.json`), JSON.stringify(row));
    rows.push(row);
  }
  return { sleeps, rows };
}

const results = [];
const note = (line) => {
  console.log(line);
  results.push(line);
};

// ---------------------------------------------------------------- a. owner
async function benchOwner() {
  const home = join(work, 'owner-home');
  const server = startServer();
  const n = nonce();
  const owner = sid(1);
  writeTask(home, 'decided', { driverSid: owner, driverPane: 'op-decided', acceptance: [] });
  writeTask(home, 'pending', { driverSid: '', driverPane: 'op-pending', spawnNonce: n });
  tmux(server.name, ['new-session', '-d', '-s', 'op-pending', 'sleep 86400', ';', 'set-option', '-t', '=op-pending:', '@spawn_nonce', n, ';', 'set-option', '-t', '=op-pending:', '@claude_session_id', owner]);
  const env = fleetEnv(home, { TMUX_FLEET_SOCKET: server.name, TMUX_FLEET_REGISTRY: join(work, 'no-registry') });
  // [label, argv, env, budget (null: a reference, not a budget)]
  const cases = [
    ['decided task (no tmux call)', [BIN, 'owner', 'decided', '--as', owner], env, 1.5],
    ['pending task (owner runs tmux once)', [BIN, 'owner', 'pending', '--as', owner], env, 1.8],
    ['decided task under TMUX_FLEET_DEBUG=1 (source maps on)', [BIN, 'owner', 'decided', '--as', owner], { ...env, TMUX_FLEET_DEBUG: '1' }, null],
  ];
  // Not a budget: the floor under any command that runs tmux once, Node starting one tmux client and nothing else.
  const floor = ['-e', `require('node:child_process').spawnSync(${JSON.stringify(TMUX)}, ['-L', ${JSON.stringify(server.name)}, 'display-message', '-p', 'x'])`];
  // BENCH_BEFORE_BIN: an older build measured in the same alternating run (before/after figures).
  const before = process.env.BENCH_BEFORE_BIN;
  // (TMUX_FLEET_DIRECT_READ: builds that asked a supervisor for the read make it themselves, as this one does.)
  if (before) cases.push(...cases.slice(0, 2).map(([label, args, e, budget]) => [`${label}, before (${before})`, [before, ...args.slice(1)], { ...e, TMUX_FLEET_DIRECT_READ: '1' }, budget]));
  // The caller's CA bundle on both sides (its own `node -e 0` below): a reference, not the budget.
  const withCa = (e) => ({ ...e, NODE_EXTRA_CA_CERTS: CALLER_CA_CERTS });
  if (CALLER_CA_CERTS) cases.push(...cases.slice(0, 2).map(([label, args, e]) => [`${label}, with the caller's NODE_EXTRA_CA_CERTS on both sides`, args, withCa(e), null, 'ca']));
  for (const [, args, e] of cases) {
    const r = spawnSync(process.execPath, args, { encoding: 'utf8', env: e });
    if (r.status !== 0) throw new Error(`owner ${args.join(' ')} answered ${r.status}: ${r.stdout}${r.stderr}`);
  }
  const base = [];
  const baseCa = [];
  const floorTimes = [];
  const times = cases.map(() => []);
  for (let i = 0; i < RUNS + 3; i++) {
    const b = timeRun(['-e', '0'], env);
    const bc = CALLER_CA_CERTS ? timeRun(['-e', '0'], withCa(env)) : null;
    const t = cases.map(([, args, e]) => timeRun(args, e));
    const f = timeRun(floor, env);
    if (i < 3) continue; // warm-up
    base.push(b.ms);
    if (bc) baseCa.push(bc.ms);
    floorTimes.push(f.ms);
    t.forEach((x, j) => times[j].push(x.ms));
  }
  // The ratio of each run to the `node -e 0` run just before it, then the median of those:
  // a shared machine drifts within a run, and pairs cancel the drift.
  const pairedRatio = (xs, to = base) => median(xs.map((x, i) => x / to[i]));
  const mb = median(base);
  note(`| a | \`node -e 0\` median | ${mb.toFixed(1)} ms | | ${RUNS} runs, alternating; ratios are medians of run / the \`node -e 0\` run before it |`);
  note(`| a | floor for one tmux call: \`node -e\` running \`tmux display-message\` once (child_process, nothing else) | **${pairedRatio(floorTimes).toFixed(2)}x** (${median(floorTimes).toFixed(1)} ms) | reference | |`);
  if (CALLER_CA_CERTS) note(`| a | \`node -e 0\` median with the caller's NODE_EXTRA_CA_CERTS | ${median(baseCa).toFixed(1)} ms | reference | every figure above is measured without it |`);
  cases.forEach(([label, , , budget, side], j) => {
    const m = median(times[j]);
    const ratio = pairedRatio(times[j], side === 'ca' ? baseCa : base);
    const verdict = budget === null ? 'reference | ' : `≤ ${budget.toFixed(1)}x | ${ratio <= budget ? 'met' : 'OVER'}`;
    note(`| a | \`owner\` ${label}: median ratio to \`node -e 0\` | **${ratio.toFixed(2)}x** (${m.toFixed(1)} ms) | ${verdict} |`);
  });
  // What the helper's files weigh (scripts/build.mjs): owner on a decided task reads the first two.
  const kb = (f) => `${(statSync(join(root, 'dist', f)).size / 1024).toFixed(0)} KB`;
  const files = ['tmux-fleet.cjs', 'fast.cjs', 'cli.cjs', ...readdirSync(join(root, 'dist', 'deps')).filter((f) => f.endsWith('.cjs')).sort().map((f) => `deps/${f}`)];
  note(`| a | built files: ${files.map((f) => `\`${f}\``).join(' / ')} | ${files.map(kb).join(' / ')} | reference | |`);
  killServer(server);
}

// ---------------------------------------------------------------- b. per redraw
function fiftySessions(server, count, extra = () => []) {
  const cmds = [];
  for (let i = 0; i < count; i++) {
    const s = `s${String(i).padStart(2, '0')}`;
    cmds.push(['new-session', '-d', '-s', s, '-x', '160', '-y', '40', 'sleep 86400']);
    cmds.push(...extra(s, i));
  }
  tmuxChain(server.name, cmds);
}
async function benchRedraw() {
  if (!STRACE) return note('| b | processes started per status redraw, 50 sessions | skipped: strace missing | 0 | |');
  const server = startServer();
  fiftySessions(server, 50, (s, i) => [
    ['set-option', '-t', `=${s}:`, '@fleet-owner', i % 2 ? '✔ owner' : '● other'],
    ['set-option', '-t', `=${s}:`, '@fleet-hop', i % 5 ? '' : '10e3 → e9e4'],
    ['set-option', '-t', `=${s}:`, '@fleet-agent', 'busy'],
  ]);
  // What the plugin turns #{fleet_owner} #{fleet_hop} #{fleet_agent} into.
  tmuxChain(server.name, [
    ['set-option', '-g', 'status-left', '#{@fleet-owner} #{@fleet-hop} '],
    ['set-option', '-g', 'status-right', '#{@fleet-agent} %H:%M'],
    ['set-option', '-g', 'status-interval', '0'],
  ]);
  const outer = attachClient(server, 's07');
  const client = await waitFor(() => tmux(server.name, ['list-clients', '-F', '#{client_name}'], { allowFail: true }).split('\n')[0], 'client attached');
  await sleep(300);
  const stop = await traceStart([server.pid], 'execve,clone,clone3,fork,vfork');
  const cmds = [];
  for (let i = 0; i < REDRAWS; i++) cmds.push(['refresh-client', '-S', '-t', client], ['switch-client', '-c', client, '-t', `=s${String(i % 50).padStart(2, '0')}:`]);
  tmuxChain(server.name, cmds);
  await sleep(500);
  const lines = await stop();
  const ex = execveCount(lines);
  const forks = forkCount(lines);
  note(`| b | processes started per status redraw (50 sessions, ${REDRAWS} forced redraws and ${REDRAWS} session switches, 1 client) | **${(ex / REDRAWS).toFixed(3)}** (${ex} execve, ${forks} forks in total) | 0 | ${ex === 0 ? 'met' : 'OVER'} |`);
  killServer(outer);
  killServer(server);
}

// ---------------------------------------------------------------- c. supervisor CPU / RSS
async function benchSupervisor() {
  const home = join(work, 'sup-home');
  const registry = join(work, 'sup-registry');
  const server = startServer({ TMUX_FLEET_HOME: home, TMUX_FLEET_REGISTRY: registry });
  const liveSids = Array.from({ length: 20 }, (_, i) => sid(100 + i));
  fiftySessions(server, 50, (s, i) => {
    const slug = `task-${i}`;
    const n = nonce();
    if (i < 40) writeTask(home, slug, i % 2 ? { driverSid: liveSids[i % 20], driverPane: s } : { driverSid: '', driverPane: s, spawnNonce: n });
    return [
      ['set-option', '-t', `=${s}:`, '@fleet-task', slug],
      ['set-option', '-t', `=${s}:`, '@spawn_nonce', n],
      ['set-option', '-t', `=${s}:`, '@claude_session_id', i < 30 ? liveSids[i % 20] : sid(5000 + i)],
    ];
  });
  const { rows } = makeRegistry(registry, 200, liveSids);
  const env = fleetEnv(home, { TMUX_FLEET_SOCKET: server.name, TMUX_FLEET_REGISTRY: registry });
  const sup = spawn(process.execPath, [...supervisorNodeArgs(), BIN, 'supervise'], { env: { ...env, ...PLUGIN_SUPERVISOR_ENV }, stdio: ['ignore', 'ignore', 'pipe'] });
  children.add(sup);
  let supErr = '';
  sup.stderr.on('data', (d) => (supErr += d));
  await waitFor(() => tmux(server.name, ['show-options', '-qv', '-t', '=s01:', '@fleet-owner']) !== '' || sup.exitCode !== null, 'supervisor first render');
  if (sup.exitCode !== null) throw new Error(`supervisor exited: ${supErr}`);
  await sleep(2000);
  const window = async (seconds, change) => {
    const a = procStat(sup.pid);
    let rss = 0;
    const t0 = Date.now();
    for (let s = 0; s < seconds; s++) {
      if (change) change(s);
      rss = Math.max(rss, vmRssKb(sup.pid));
      await sleep(Math.max(0, t0 + (s + 1) * 1000 - Date.now()));
    }
    const b = procStat(sup.pid);
    const wall = (Date.now() - t0) / 1000;
    const cpu = ((b.utime + b.stime - a.utime - a.stime) / CLK_TCK / wall) * 100;
    const kids = ((b.cutime + b.cstime - a.cutime - a.cstime) / CLK_TCK / wall) * 100;
    return { cpu, kids, rss: Math.max(rss, vmRssKb(sup.pid)) / 1024 };
  };
  const idle = await window(IDLE_S, null);
  const dead = rows.filter((r) => r.pid >= 4_000_000);
  const churn = await window(CHURN_S, (s) => {
    const row = dead[s % dead.length];
    row.status = row.status === 'busy' ? 'idle' : 'busy';
    row.updatedAt = Date.now();
    writeFileSync(join(registry, `${row.pid}.json`), JSON.stringify(row));
  });
  for (const [label, w, secs] of [['nothing changing', idle, IDLE_S], ['one registry change per second', churn, CHURN_S]]) {
    note(`| c | supervisor CPU, 50 sessions, 200 registry rows, ${label}, ${secs} s | **${w.cpu.toFixed(2)} %** of a core (+ ${w.kids.toFixed(2)} % in its children: its shell and the tmux clients it ran) | < 1 % | ${w.cpu + w.kids < 1 ? 'met' : 'OVER'} |`);
    note(`| c | supervisor RSS (max VmRSS), ${label} | **${w.rss.toFixed(1)} MB** | < 80 MB | ${w.rss < 80 ? 'met' : 'OVER'} |`);
  }
  sup.kill('SIGTERM');
  await waitFor(() => sup.exitCode !== null || sup.signalCode !== null, 'supervisor exit').catch(() => undefined);
  killServer(server);
}

// ---------------------------------------------------------------- d, e. sweep and tick
async function benchSweep() {
  const wrapDir = join(work, 'wrap');
  mkdirSync(wrapDir, { recursive: true });
  const countFile = join(work, 'tmux-calls.txt');
  writeFileSync(join(wrapDir, 'tmux'), `#!/bin/sh\nprintf '%s\\n' "$1 $2 $3" >> "${countFile}"\nexec "${TMUX}" "$@"\n`);
  chmodSync(join(wrapDir, 'tmux'), 0o755);
  const calls = (fn) => {
    writeFileSync(countFile, '');
    const r = fn();
    return { r, n: readFileSync(countFile, 'utf8').split('\n').filter(Boolean).length };
  };
  const rows = [];
  for (const size of [10, 100, 1000]) {
    const home = join(work, `sweep-${size}`);
    const registry = join(work, `sweep-reg-${size}`);
    mkdirSync(registry, { recursive: true });
    const server = startServer();
    const fills = 10; // sessions that resolve a task at every size
    const marks = [];
    for (let i = 0; i < size; i++) {
      const n = nonce();
      marks.push(n);
      writeTask(home, `t${i}`, { driverSid: '', driverPane: `op-t${i}`, spawnNonce: n, acceptance: [{ text: 'x', addedBy: '', addedAt: 'now' }] });
    }
    const cmds = [];
    for (let i = 0; i < fills; i++) {
      cmds.push(['new-session', '-d', '-s', `op-t${i}`, 'sleep 86400'], ['set-option', '-t', `=op-t${i}:`, '@spawn_nonce', marks[i]], ['set-option', '-t', `=op-t${i}:`, '@claude_session_id', sid(i + 1)]);
    }
    tmuxChain(server.name, cmds);
    const reset = () => {
      for (let i = 0; i < fills; i++) writeTask(home, `t${i}`, { driverSid: '', driverPane: `op-t${i}`, spawnNonce: marks[i] });
    };
    const env = fleetEnv(home, { TMUX_FLEET_SOCKET: server.name, TMUX_FLEET_REGISTRY: registry, PATH: `${wrapDir}:${process.env.PATH}` });
    const sw = calls(() => fleet(['sweep', '--json'], env));
    const filled = JSON.parse(sw.r.stdout || '{}').filled?.length ?? NaN;
    const tick1 = calls(() => fleet(['supervise', '--once'], env)).n;
    const tick2 = calls(() => fleet(['supervise', '--once'], env)).n;
    const times = [];
    for (let i = 0; i < (QUICK ? 3 : 7); i++) {
      reset();
      times.push(timeRun([BIN, 'sweep'], env).ms);
    }
    const idleSweep = calls(() => fleet(['sweep'], env)).n;
    rows.push({ size, sweepCalls: sw.n, idleSweep, filled, tick1, tick2, ms: median(times) });
    killServer(server);
  }
  const same = (k) => rows.every((r) => r[k] === rows[0][k]);
  note(`| d | tmux calls per \`sweep\` (filling ${rows[0].filled} tasks) at ${rows.map((r) => r.size).join(' / ')} tasks | **${rows.map((r) => r.sweepCalls).join(' / ')}** | same at every size | ${same('sweepCalls') ? 'met' : 'OVER'} |`);
  note(`| d | tmux calls per \`sweep\` with nothing to fill (0 = no pending task left, no call needed) | **${rows.map((r) => r.idleSweep).join(' / ')}** | ≤ 1 at every size | ${rows.every((r) => r.idleSweep <= 1) ? 'met' : 'OVER'} |`);
  note(`| d | tmux calls per supervisor tick (\`supervise --once\`), first / steady | **${rows.map((r) => `${r.tick1}+${r.tick2}`).join(' / ')}** | same at every size | ${same('tick1') && same('tick2') ? 'met' : 'OVER'} |`);
  const per = rows.map((r) => r.ms);
  note(`| e | \`sweep\` wall time (whole process, median) at ${rows.map((r) => r.size).join(' / ')} tasks | **${per.map((m) => m.toFixed(0)).join(' / ')} ms** (${((per[2] - per[1]) / 900).toFixed(2)} ms per extra task from 100 to 1000, ${((per[1] - per[0]) / 90).toFixed(2)} from 10 to 100) | linear | |`);
}

// ---------------------------------------------------------------- f. whole tree
async function benchTree() {
  if (!STRACE) return note('| f | processes started per second by the tmux tree | skipped: strace missing | ≤ 0.5/s | |');
  const home = join(work, 'tree-home');
  const registry = join(work, 'tree-registry');
  mkdirSync(registry, { recursive: true });
  const server = startServer({ TMUX_FLEET_HOME: home, TMUX_FLEET_REGISTRY: registry });
  fiftySessions(server, 19);
  tmuxChain(server.name, [
    ['set-option', '-g', 'status-left', '#{fleet_owner} #{fleet_hop} '],
    ['set-option', '-g', 'status-right', '#{fleet_agent} %H:%M'],
    ['set-environment', '-g', 'TMUX_FLEET_HOME', home],
    ['set-environment', '-g', 'TMUX_FLEET_REGISTRY', registry],
  ]);
  // Load the plugin the way TPM does: run it as a program with $TMUX naming the server.
  const env = { ...fleetEnv(home, { TMUX_FLEET_REGISTRY: registry }), TMUX: `${server.socketPath},${server.pid},0` };
  const r = spawnSync(join(root, 'tmux-plugin.tmux'), [], { env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`plugin load failed: ${r.stderr}`);
  const runDir = join(home, 'run');
  const supPid = await waitFor(() => {
    if (!existsSync(runDir)) return 0;
    for (const f of readdirSync(runDir).filter((n) => n.startsWith('supervisor-') && n.endsWith('.pid'))) {
      const pid = Number(readFileSync(join(runDir, f), 'utf8').trim().split(/\s/)[0]);
      if (pid > 0 && existsSync(`/proc/${pid}`)) return pid;
    }
    return 0;
  }, 'supervisor started by the plugin', 20_000);
  const outer = attachClient(server, 's03');
  await waitFor(() => tmux(server.name, ['list-clients', '-F', '#{client_name}'], { allowFail: true }), 'client attached');
  await sleep(3000); // let start-up settle
  const stop = await traceStart([server.pid, supPid], 'execve');
  const t0 = Date.now();
  await sleep(TREE_S * 1000);
  const lines = await stop();
  const secs = (Date.now() - t0) / 1000;
  const ex = execveCount(lines);
  const progs = [...new Set(lines.filter((l) => /\bexecve\(/.test(l)).map((l) => /execve\("([^"]+)"/.exec(l)?.[1] ?? '?'))];
  note(`| f | processes started per second by the tmux tree (server + supervisor, plugin loaded, 20 idle sessions, 1 client), ${Math.round(secs)} s | **${(ex / secs).toFixed(2)}/s** (${ex} execve${progs.length ? `: ${progs.join(', ')}` : ''}) | ≤ 0.5/s | ${ex / secs <= 0.5 ? 'met' : 'OVER'} |`);
  killServer(outer);
  killServer(server);
}

// ---------------------------------------------------------------- g. a change at scale
// Two fleets side by side, 50 sessions / 200 rows and 500 / 2000, each with its own
// supervisor. Every session is stamped and its pane's process holds a live
// interactive row (as an agent's would); a tenth of them park on a background
// job's row; three quarters of the rows are old ones of dead processes. Rows are
// in Claude Code 2.1.333's format (pidDomain, tmux, version, statusUpdatedAt). A
// change flips a live row's `status` busy <-> idle, as a working agent does, so
// each one changes a segment (and a turn that ends marks its session unseen,
// which changes the fleet's attention). Two ways of writing it: in place, as
// Claude Code 2.1.333 rewrites its row (the directory's mtime does not move), and
// renamed into place, a temp file renamed over the row, as the stand-in agent,
// issue 40's harness and other writers do (a name made and one replaced: the
// directory's mtime moves). The windows alternate between the two fleets, so a
// drifting machine weighs on both alike.
const SCALE_S = num('BENCH_SCALE_S', 30, 10);
const SCALE_RATE = num('BENCH_SCALE_RATE', 10, 10);
const SCALE_LATENCY_N = num('BENCH_SCALE_LATENCY_N', 40, 15);
/** Part g's nearly idle window per fleet: one row rewrite (renamed into place) every 10 s. */
const NEAR_IDLE_S = num('BENCH_NEAR_IDLE_S', 30, 20);
/** Part g's deaths per fleet: a parked job's process killed, its chain's wake measured. */
const DEATHS = QUICK ? 3 : 5;
const PID_DOMAIN = (() => {
  try {
    return `linux:${readFileSync('/etc/machine-id', 'utf8').trim()}:${readlinkSync('/proc/self/ns/pid')}`;
  } catch {
    return undefined;
  }
})();
const loadavg = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const startTicksOf = (pid) => {
  const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return s.slice(s.lastIndexOf(')') + 2).split(' ')[19];
};
function scaleFleet(sessions, rowCount) {
  const tag = `scale-${sessions}`;
  const home = join(work, `${tag}-home`);
  const registry = join(work, `${tag}-registry`);
  mkdirSync(registry, { recursive: true });
  const server = startServer({ TMUX_FLEET_HOME: home, TMUX_FLEET_REGISTRY: registry });
  const names = Array.from({ length: sessions }, (_, i) => `w${String(i).padStart(3, '0')}`);
  const stamps = names.map((_, i) => sid(10_000 + i));
  const cmds = [];
  names.forEach((s, i) => {
    cmds.push(['new-session', '-d', '-s', s, '-x', '160', '-y', '40', 'sleep 86400']);
    cmds.push(['set-option', '-t', `=${s}:`, '@claude_session_id', stamps[i]]);
    // Four in five sessions are bound to a task; half of those tasks are decided.
    if (i % 5 !== 4) {
      const slug = `${tag}-task-${i}`;
      const n = nonce();
      writeTask(home, slug, i % 2 ? { driverSid: stamps[i], driverPane: s } : { driverSid: '', driverPane: s, spawnNonce: n });
      cmds.push(['set-option', '-t', `=${s}:`, '@fleet-task', slug], ['set-option', '-t', `=${s}:`, '@spawn_nonce', n]);
    }
  });
  tmuxChain(server.name, cmds);
  const paneOf = new Map(
    tmux(server.name, ['list-panes', '-a', '-F', '#{session_name}\t#{pane_pid}\t#{window_id}\t#{pane_id}'])
      .split('\n')
      .map((l) => l.split('\t'))
      .map(([s, p, w, id]) => [s, { pid: Number(p), where: `${s}:${w}.${id}` }]),
  );
  const now = Date.now();
  const flips = [];
  const jobs = [];
  let written = 0;
  // What Claude Code 2.1.333 writes beside the fields tmux-fleet reads (test/fixtures/real-row-2.1.333.json).
  const claudeFields = { version: '2.1.333', peerProtocol: 1, entrypoint: 'cli', ...(PID_DOMAIN ? { pidDomain: PID_DOMAIN } : {}) };
  const write = (row) => {
    writeFileSync(join(registry, `${row.pid}.json`), JSON.stringify(row));
    written++;
  };
  names.forEach((s, i) => {
    const { pid, where } = paneOf.get(s);
    const row = { pid, sessionId: stamps[i], cwd: `/work/${s}`, startedAt: now - 3_600_000, procStart: startTicksOf(pid), kind: 'interactive', ...claudeFields, tmux: where, status: i % 2 ? 'busy' : 'idle', updatedAt: now, statusUpdatedAt: now, name: s };
    if (i % 10 === 9) {
      // Parked: the work runs under a background job's row, a process of its own.
      const job = (0x10000000 + i).toString(16);
      const c = spawn('sleep', ['86400'], { stdio: 'ignore' });
      children.add(c);
      row.status = 'idle';
      row.parkedJobId = job;
      write({ pid: c.pid, sessionId: sid(20_000 + i), cwd: row.cwd, startedAt: now, procStart: startTicksOf(c.pid), kind: 'bg', ...claudeFields, jobId: job, status: 'busy', updatedAt: now, statusUpdatedAt: now });
      jobs.push({ child: c, session: s });
    } else flips.push(row);
    write(row);
  });
  // Old rows of processes long gone (a crash leaves its row): written a day ago.
  const dayAgo = new Date(now - 86_400_000);
  for (let i = 0; written < rowCount; i++) {
    write({ pid: 4_000_000 + i, sessionId: sid(900_000 + i), cwd: '/tmp', startedAt: now - 90_000_000, procStart: '12345', kind: 'interactive', ...claudeFields, status: 'idle', updatedAt: now - 86_400_000, statusUpdatedAt: now - 86_400_000 });
    utimesSync(join(registry, `${4_000_000 + i}.json`), dayAgo, dayAgo);
  }
  const env = fleetEnv(home, { TMUX_FLEET_SOCKET: server.name, TMUX_FLEET_REGISTRY: registry });
  if (process.env.BENCH_SUPERVISOR_DEBUG === '1') env.TMUX_FLEET_DEBUG = '1';
  return { sessions, rows: rowCount, tag, home, registry, server, flips, jobs, env, next: 0 };
}
/**
 * Flips the next live row's status; returns the session and the status it should show.
 * `renamed`: written to a temp file renamed over the row, else rewritten in place.
 */
function flip(fleet, renamed = false) {
  const row = fleet.flips[fleet.next++ % fleet.flips.length];
  row.status = row.status === 'busy' ? 'idle' : 'busy';
  row.updatedAt = row.statusUpdatedAt = Date.now();
  const file = join(fleet.registry, `${row.pid}.json`);
  if (renamed) {
    const tmp = join(fleet.registry, `.${row.pid}.json.tmp`);
    writeFileSync(tmp, JSON.stringify(row));
    renameSync(tmp, file);
  } else writeFileSync(file, JSON.stringify(row));
  return { session: row.name, status: row.status };
}
const showAgent = (fleet, session) => tmux(fleet.server.name, ['show-options', '-qv', '-t', `=${session}:`, '@fleet-agent'], { allowFail: true });
/**
 * A control-mode client (`tmux -C`) on the server's keeper session: each poll is
 * one command on one connection. Each tmux client started costs the server CPU
 * that grows with its sessions (about 0.6 ms at 50 sessions, 2.3 at 500, measured),
 * so a client per poll, every few ms, would slow the very write it waits for
 * (in one run: p50 40 and 52 ms polled that way, 24 and 29 through this client).
 */
function controlClient(server) {
  const child = spawn(TMUX, ['-L', server, '-C', 'attach-session', '-t', '=keeper', '-f', 'no-output,ignore-size'], { stdio: ['pipe', 'pipe', 'ignore'] });
  children.add(child);
  const waiting = [];
  let buf = '';
  let reply = null;
  child.stdout.on('data', (d) => {
    buf += d;
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      // Flags 1: the reply to a command of ours (0: the attach itself, notifications between).
      if (reply === null && /^%begin \d+ \d+ 1$/.test(line)) reply = [];
      else if (reply !== null && /^%(end|error) \d+ \d+ 1$/.test(line)) {
        waiting.shift()?.(reply.join('\n'));
        reply = null;
      } else if (reply !== null) reply.push(line);
    }
  });
  // The server gone: every question waiting is answered with nothing, so no poll waits for ever.
  let closed = false;
  child.on('close', () => {
    closed = true;
    for (const resolve of waiting.splice(0)) resolve('');
  });
  child.stdin.on('error', () => undefined);
  return {
    /** One tmux command line (tmux's own syntax); its output. */
    query: (command) => new Promise((resolve) => {
      if (closed) return resolve('');
      waiting.push(resolve);
      child.stdin.write(`${command}\n`);
    }),
    close: () => {
      child.stdin.end();
      children.delete(child);
    },
  };
}
const IDLE_SCALE_S = num('BENCH_SCALE_IDLE_S', 20, 5);
/** Session renames measured per fleet (even: the name is back at the end). */
const TMUX_CHANGES = QUICK ? 4 : 10;
const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
/**
 * Rows of any size up to the reader's cap: the large fleet's old rows become 255 KiB each (hard links of
 * one file, a day old: 255 KiB of disk), read by the supervisor while its rows keep changing; the peak RSS.
 */
async function bigRows(large) {
  const big = join(work, 'big-row.json');
  const dayAgo = new Date(Date.now() - 86_400_000);
  writeFileSync(big, JSON.stringify({ pid: 4_999_999, sessionId: sid(999_999), cwd: '/tmp', startedAt: 0, kind: 'interactive', status: 'waiting', waitingFor: 'w'.repeat(4000), blob: 'x'.repeat(250 * 1024), updatedAt: dayAgo.getTime() }));
  utimesSync(big, dayAgo, dayAgo);
  const old = readdirSync(large.registry).filter((n) => Number(n.split('.')[0]) >= 4_000_000);
  large.bigRss = vmRssKb(large.sup.pid);
  for (const n of old) {
    rmSync(join(large.registry, n));
    linkSync(big, join(large.registry, n));
  }
  large.bigRows = old.length;
  const t0 = Date.now();
  for (let i = 0; i < 10 * SCALE_RATE; i++) {
    flip(large);
    large.bigRss = Math.max(large.bigRss, vmRssKb(large.sup.pid));
    await sleep(Math.max(0, t0 + ((i + 1) * 1000) / SCALE_RATE - Date.now()));
  }
  const want = flip(large);
  await waitFor(() => showAgent(large, want.session).includes(` ${want.status}`), 'a change shown after the big rows', 30_000).catch(() => (large.bigStuck = true));
  large.bigRss = Math.max(large.bigRss, vmRssKb(large.sup.pid));
}
async function benchScale() {
  // BENCH_SCALE_BIG_ONLY=1: the large fleet alone, its daemon started, then the big rows' peak RSS (a quick A/B).
  const bigOnly = process.env.BENCH_SCALE_BIG_ONLY === '1';
  const fleets = bigOnly ? [scaleFleet(500, 2000)] : [scaleFleet(50, 200), scaleFleet(500, 2000)];
  const nodeArgs = supervisorNodeArgs();
  // The first wake: `supervise --once` on a fleet whose options are all still to write.
  for (const f of fleets) {
    const t = timeRun([BIN, 'supervise', '--once'], f.env);
    if (t.status !== 0) throw new Error(`supervise --once answered ${t.status} at ${f.sessions} sessions`);
    f.once = t.ms;
    f.onceLoad = loadavg();
    if (showAgent(f, f.flips[0].name) === '') {
      const log = readdirSync(f.home).filter((n) => n.endsWith('.log')).map((n) => readFileSync(join(f.home, n), 'utf8').slice(-600)).join(' ');
      throw new Error(`supervise --once wrote no @fleet-agent at ${f.sessions} sessions (${t.ms.toFixed(0)} ms): ${log}`);
    }
  }
  for (const f of fleets) {
    // Each fleet's options cleared again, so the daemon's own first wake writes them all.
    tmuxChain(f.server.name, f.flips.map((r) => ['set-option', '-u', '-t', `=${r.name}:`, '@fleet-agent']));
    const t0 = Date.now();
    f.sup = spawn(process.execPath, [...nodeArgs, BIN, 'supervise'], { env: { ...f.env, ...PLUGIN_SUPERVISOR_ENV }, stdio: ['ignore', 'ignore', 'pipe'] });
    children.add(f.sup);
    let err = '';
    f.sup.stderr.on('data', (d) => (err += d));
    await waitFor(() => f.sup.exitCode !== null || f.flips.every((r, i) => i % 50 !== 0 || showAgent(f, r.name) !== ''), `supervisor first render at ${f.sessions} sessions`, 60_000);
    if (f.sup.exitCode !== null) throw new Error(`supervisor exited: ${err}`);
    f.firstRender = Date.now() - t0;
    f.cpu = 0;
    f.changes = 0;
    f.secs = 0;
    f.rss = 0;
  }
  await sleep(3000);
  if (bigOnly) {
    const [large] = fleets;
    await bigRows(large);
    note(`| g | supervisor RSS (max VmRSS), ${large.sessions} sessions, ${large.rows} rows, ${large.bigRows} of them 255 KiB (read while the rows change, 10 s), the fleet alone | **${(large.bigRss / 1024).toFixed(1)} MB**${large.bigStuck ? ' (a change was not shown after them)' : ''} | < 80 MB | ${large.bigRss / 1024 < 80 && !large.bigStuck ? 'met' : 'OVER'} |`);
    large.sup.kill('SIGTERM');
    killServer(large.server);
    return;
  }
  // Nothing changing first: what a fleet costs per second without a change (the poll), part of each change's cost below.
  // Measured from the threads' run time (exact): the figure is a few tens of ms in the window, a few 10 ms ticks.
  for (const f of fleets) {
    const a = cpuMs(f.sup.pid);
    const t0 = Date.now();
    await sleep(IDLE_SCALE_S * 1000);
    f.idle = (cpuMs(f.sup.pid) - a) / (Date.now() - t0);
  }
  // BENCH_SCALE_IDLE_ONLY=1: the idle windows alone, the supervisors stopped right after (with
  // BENCH_SUPERVISOR_NODE_ARGS=--cpu-prof, each profile's last BENCH_SCALE_IDLE_S seconds are the large fleet's idle poll).
  if (process.env.BENCH_SCALE_IDLE_ONLY === '1') {
    for (const f of fleets) {
      const exited = new Promise((r) => f.sup.once('exit', r));
      f.sup.kill('SIGTERM');
      await exited;
    }
    for (const f of fleets) note(`| g | supervisor CPU with nothing changing, ${f.sessions} sessions, ${f.rows} rows, ${IDLE_SCALE_S} s (the poll) | **${(f.idle * 100).toFixed(3)} %** of a core | < 0.5 % | ${f.idle * 100 < 0.5 ? 'met' : 'OVER'} |`);
    note(`| g | CPU idle, 500/2000 over 50/200, nothing changing | **${(fleets[1].idle / fleets[0].idle).toFixed(2)}x** | ≤ 2x | ${fleets[1].idle / fleets[0].idle <= 2 ? 'met' : 'OVER'} |`);
    for (const f of fleets) killServer(f.server);
    return;
  }
  const loadStart = loadavg();
  const rounds = 2;
  const per = Math.max(1, Math.round(SCALE_S / rounds));
  /** One churn window of a fleet: SCALE_RATE changes a second, written in place or renamed into place; adds to `into`. */
  const churn = async (f, renamed, into) => {
    const a = procStat(f.sup.pid);
    const t0 = Date.now();
    const n = per * SCALE_RATE;
    for (let i = 0; i < n; i++) {
      flip(f, renamed);
      into.changes = (into.changes ?? 0) + 1;
      if (i % SCALE_RATE === 0) f.rss = Math.max(f.rss, vmRssKb(f.sup.pid));
      await sleep(Math.max(0, t0 + ((i + 1) * 1000) / SCALE_RATE - Date.now()));
    }
    // The last change's wake, inside the window.
    await sleep(200);
    const b = procStat(f.sup.pid);
    into.cpu = (into.cpu ?? 0) + (b.utime + b.stime + b.cutime + b.cstime - a.utime - a.stime - a.cutime - a.cstime) / CLK_TCK;
    into.kids = (into.kids ?? 0) + (b.cutime + b.cstime - a.cutime - a.cstime) / CLK_TCK;
    into.sys = (into.sys ?? 0) + (b.stime - a.stime) / CLK_TCK;
    into.secs = (into.secs ?? 0) + (Date.now() - t0) / 1000;
    f.rss = Math.max(f.rss, vmRssKb(f.sup.pid));
  };
  for (let round = 0; round < rounds; round++) for (const f of fleets) await churn(f, false, f);
  // The same changes renamed into place.
  for (let round = 0; round < rounds; round++) for (const f of fleets) await churn(f, true, (f.renamed ??= {}));
  const loadEnd = loadavg();
  // Nearly idle (issue 40's idle fleet): one row rewrite, renamed into place, every 10 s.
  for (const f of fleets) {
    const a = cpuMs(f.sup.pid);
    const t0 = Date.now();
    for (let i = 0; i < Math.max(1, Math.round(NEAR_IDLE_S / 10)); i++) {
      flip(f, true);
      await sleep(Math.max(0, t0 + (i + 1) * 10_000 - Date.now()));
    }
    f.nearIdle = (cpuMs(f.sup.pid) - a) / (Date.now() - t0);
    f.rss = Math.max(f.rss, vmRssKb(f.sup.pid));
  }
  // Latency: one change at a time, the option polled from here until it shows.
  for (const f of fleets) {
    f.lat = [];
    const control = controlClient(f.server.name);
    for (let i = 0; i < SCALE_LATENCY_N; i++) {
      await sleep(250);
      const t0 = process.hrtime.bigint();
      const want = flip(f);
      const end = Date.now() + 5000;
      // The fleet's session names are plain (w001): no quoting needed in tmux's syntax.
      while (!(await control.query(`show-options -qv -t =${want.session}: @fleet-agent`)).includes(` ${want.status}`) && Date.now() < end) await sleep(1);
      f.lat.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    control.close();
  }
  // A tmux change: a session renamed (one of the hooks' events), one a second so that each is a wake of its own;
  // the supervisor reads tmux once and computes the view again. Its CPU per change, the poll's share taken out.
  for (const f of fleets) {
    const name = f.flips[1].name;
    const a = procStat(f.sup.pid);
    const t0 = Date.now();
    for (let i = 0; i < TMUX_CHANGES; i++) {
      const [from, to] = i % 2 === 0 ? [name, `${name}-renamed`] : [`${name}-renamed`, name];
      tmux(f.server.name, ['rename-session', '-t', `=${from}`, to]);
      await sleep(1000);
    }
    const b = procStat(f.sup.pid);
    const secs = (Date.now() - t0) / 1000;
    const cpu = (b.utime + b.stime + b.cutime + b.cstime - a.utime - a.stime - a.cutime - a.cstime) / CLK_TCK;
    f.tmuxChange = (Math.max(0, cpu - f.idle * secs) / TMUX_CHANGES) * 1000;
    f.tmuxChangeKids = ((b.cutime + b.cstime - a.cutime - a.cstime) / CLK_TCK / TMUX_CHANGES) * 1000;
    f.tmuxChangeSys = ((b.stime - a.stime) / CLK_TCK / TMUX_CHANGES) * 1000;
  }
  // A death: a parked job's process killed (its row stays, as after a crash: no file changes). The poll finds it
  // (kill(pid, 0)) and the next wake judges that row's chain again; the session it was parked by shows the change.
  // Its CPU per death, the poll's share taken out.
  const segmentsOf = (f, session) => tmux(f.server.name, ['display-message', '-p', '-t', `=${session}:`, '#{@fleet-agent}|#{@fleet-hop}'], { allowFail: true });
  for (const f of fleets) {
    const a = cpuMs(f.sup.pid);
    const t0 = Date.now();
    f.deaths = 0;
    for (const j of f.jobs.slice(0, DEATHS)) {
      const before = segmentsOf(f, j.session);
      const exited = new Promise((r) => j.child.once('exit', r));
      j.child.kill('SIGKILL');
      await exited;
      await waitFor(() => segmentsOf(f, j.session) !== before, `the death under ${j.session} shown`, 15_000).catch(() => (f.deathStuck = true));
      f.deaths++;
      await sleep(300);
    }
    const secs = (Date.now() - t0) / 1000;
    f.death = Math.max(0, cpuMs(f.sup.pid) - a - f.idle * secs * 1000) / f.deaths;
  }
  const [small, large] = fleets;
  await bigRows(large);
  const perChange = (f) => (f.cpu / f.changes) * 1000;
  const ratio = perChange(large) / perChange(small);
  const ratioRenamed = perChange(large.renamed) / perChange(small.renamed);
  note(`| g | load average at the start / end of the churn windows | ${loadStart} / ${loadEnd} | reference | ${SCALE_RATE} changes/s, ${rounds} alternating windows per fleet, ${large.secs.toFixed(0)} s each fleet in all |`);
  for (const f of fleets) {
    const label = `${f.sessions} sessions, ${f.rows} rows`;
    const share = (f.cpu / f.secs) * 100;
    for (const [how, w] of [['rewritten in place', f], ['renamed into place', f.renamed]]) {
      const share = (w.cpu / w.secs) * 100;
      note(`| g | supervisor CPU per change (it + the tmux it starts), ${label}, rows ${how} | **${perChange(w).toFixed(2)} ms** (${share.toFixed(2)} % of a core at ${SCALE_RATE}/s, ${w.changes} changes; per change ${((w.sys / w.changes) * 1000).toFixed(1)} ms in its system time, ${((w.kids / w.changes) * 1000).toFixed(1)} ms in its shell and the tmux clients it ran) | ${f === large ? `< 8 % of a core | ${share < 8 ? 'met' : 'OVER'}` : 'reference | '} |`);
    }
    note(`| g | supervisor CPU with nothing changing, ${label}, ${IDLE_SCALE_S} s (the poll) | **${(f.idle * 100).toFixed(3)} %** of a core (${((f.idle * 1000) / SCALE_RATE).toFixed(2)} ms of each change's cost at ${SCALE_RATE}/s) | < 0.5 % | ${f.idle * 100 < 0.5 ? 'met' : 'OVER'} |`);
    note(`| g | supervisor CPU nearly idle (one row rewrite every 10 s, renamed into place), ${label}, ${NEAR_IDLE_S} s | **${(f.nearIdle * 100).toFixed(3)} %** of a core | < 0.5 % | ${f.nearIdle * 100 < 0.5 ? 'met' : 'OVER'} |`);
    note(`| g | supervisor CPU per death (a parked job's process killed, its row left: the poll finds it, the wake judges that chain), ${label}, the poll's share taken out | **${f.death.toFixed(1)} ms**${f.deathStuck ? ' (a death was not shown)' : ''} (${f.deaths} deaths) | reference | |`);
    note(`| g | supervisor RSS (max VmRSS), ${label} | **${(f.rss / 1024).toFixed(1)} MB** | < 80 MB | ${f.rss / 1024 < 80 ? 'met' : 'OVER'} |`);
    note(`| g | row write → @fleet-agent shows it, ${label}, p50 / p90 (${f.lat.length} changes, polled through one control-mode client) | **${pct(f.lat, 50).toFixed(0)} / ${pct(f.lat, 90).toFixed(0)} ms** | p50 < 60 ms | ${pct(f.lat, 50) < 60 ? 'met' : 'OVER'} |`);
    note(`| g | first wake, ${label}: \`supervise --once\` whole process / the daemon's first render | **${f.once.toFixed(0)} ms** / ${f.firstRender} ms | reference | load ${f.onceLoad} |`);
  }
  note(`| g | CPU per change, 500/2000 over 50/200, rows rewritten in place | **${ratio.toFixed(2)}x** | ≤ 1.5x | ${ratio <= 1.5 ? 'met' : 'OVER'} |`);
  note(`| g | CPU per change, 500/2000 over 50/200, rows renamed into place | **${ratioRenamed.toFixed(2)}x** | ≤ 1.5x | ${ratioRenamed <= 1.5 ? 'met' : 'OVER'} |`);
  const idleRatio = large.idle / small.idle;
  const nearRatio = large.nearIdle / small.nearIdle;
  note(`| g | CPU idle, 500/2000 over 50/200: nothing changing / nearly idle | **${idleRatio.toFixed(2)}x / ${nearRatio.toFixed(2)}x** | ≤ 2x | ${idleRatio <= 2 && nearRatio <= 2 ? 'met' : 'OVER'} |`);

  note(`| g | supervisor CPU per tmux change (a session renamed: one tmux read, the sessions it changed computed again), 50/200 and 500/2000, ${TMUX_CHANGES} each, the poll's share taken out | **${small.tmuxChange.toFixed(1)} / ${large.tmuxChange.toFixed(1)} ms** (of which its system time ${small.tmuxChangeSys.toFixed(1)} / ${large.tmuxChangeSys.toFixed(1)} ms, its shell and the tmux clients it ran ${small.tmuxChangeKids.toFixed(1)} / ${large.tmuxChangeKids.toFixed(1)} ms) | reference | |`);
  note(`| g | supervisor RSS (max VmRSS), ${large.sessions} sessions, ${large.rows} rows, ${large.bigRows} of them 255 KiB (read while the rows change, 10 s) | **${(large.bigRss / 1024).toFixed(1)} MB**${large.bigStuck ? ' (a change was not shown after them)' : ''} | < 80 MB | ${large.bigRss / 1024 < 80 && !large.bigStuck ? 'met' : 'OVER'} |`);
  for (const f of fleets) {
    f.sup.kill('SIGTERM');
    await waitFor(() => f.sup.exitCode !== null || f.sup.signalCode !== null, 'supervisor exit').catch(() => undefined);
    killServer(f.server);
  }
}

// ---------------------------------------------------------------- h. notifications from a real agent
// The real Claude Code 2.1.333 (from the real tier's cache) in a private server
// with the plugin, its hooks installed, turns answered by the scripted model
// server: a permission wait, then (after the notification's 5 s gap) the answer
// and the turn's end. Each notification is read where a person gets it: the
// bytes of a client's terminal (script's pty). Its lag is from the agent's own
// write: the row's statusUpdatedAt (waiting, then idle).
async function benchNotify() {
  const version = '2.1.333';
  const cache = process.env.TMUX_FLEET_CLAUDE_CACHE || join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'tmux-fleet-test', 'claude-code');
  const claude = join(cache, version, 'claude');
  if (!existsSync(claude)) return note(`| h | notification lag from the agent's write (real Claude Code ${version}) | skipped: not in the cache (npm run test:agents fetches it) | < 1 s | |`);
  const SCRIPT = (spawnSync('command', ['-v', 'script'], { shell: true, encoding: 'utf8' }).stdout || '').trim();
  if (!SCRIPT) return note('| h | notification lag | skipped: script(1) missing | < 1 s | |');
  const { startModelServer } = await import(join(root, 'test', 'fixtures', 'model-server.mjs'));
  const model = await startModelServer({ script: [{ match: 'list the root', tool: { name: 'Bash', input: { command: 'ls -la /', description: 'List the root directory' } }, after: 'done.' }] });
  const home = join(work, 'notify-home');
  const work2 = join(home, 'work');
  mkdirSync(join(home, '.claude'), { recursive: true });
  mkdirSync(work2, { recursive: true });
  const apiKey = `sk-ant-api03-${randomBytes(30).toString('hex')}`;
  writeFileSync(join(home, '.claude.json'), JSON.stringify({ hasCompletedOnboarding: true, customApiKeyResponses: { approved: [apiKey.slice(-20)], rejected: [] }, projects: { [work2]: { hasTrustDialogAccepted: true } }, hasSeenAutoDefaultNudge: true }));
  writeFileSync(join(home, '.claude', 'settings.json'), JSON.stringify({ permissions: { defaultMode: 'default' }, env: { ANTHROPIC_BASE_URL: model.url } }));
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    TERM: 'xterm-256color',
    LANG: 'C.UTF-8',
    TMUX_FLEET_HOME: join(home, 'fleet'),
    ANTHROPIC_API_KEY: apiKey,
    ANTHROPIC_BASE_URL: model.url,
    DISABLE_AUTOUPDATER: '1',
  };
  const server = startServer(env);
  const ptyDir = join(work, 'notify-pty');
  mkdirSync(ptyDir, { recursive: true });
  let client = null;
  try {
    tmuxChain(server.name, [
      ['set-option', '-g', '@fleet-agent-cmd', claude],
      ['set-option', '-g', 'status-right', '#{fleet_agent} #{fleet_attention}'],
    ]);
    const fenv = { ...env, TMUX_FLEET_SOCKET: server.name };
    const hooks = spawnSync(process.execPath, [BIN, 'hooks', 'install', '--agent', 'claude'], { env: fenv, encoding: 'utf8' });
    if (hooks.status !== 0) throw new Error(`hooks install: ${hooks.stderr}`);
    tmux(server.name, ['run-shell', join(root, 'tmux-plugin.tmux')], { env });
    await waitFor(() => existsSync(join(home, 'fleet', 'run')) && readdirSync(join(home, 'fleet', 'run')).some((n) => n.startsWith('supervisor-')), 'the supervisor', 60_000);
    const out = join(ptyDir, 'client.out');
    client = spawn(SCRIPT, ['-qf', '-c', `env -u TMUX ${TMUX} -L ${server.name} attach-session -t =keeper:`, out], { stdio: 'ignore', detached: true, env });
    children.add(client);
    await waitFor(() => tmux(server.name, ['list-clients', '-F', '#{client_name}'], { allowFail: true }), 'the client');
    const bytes = () => (existsSync(out) ? Buffer.from(readFileSync(out, 'latin1'), 'latin1').toString('utf8') : '');
    const oscs = () => [...bytes().matchAll(/\u001b\]9;([^\u001b\u0007]*)\u001b\\/g)].map((m) => m[1]);
    const sp = spawnSync(process.execPath, [BIN, 'spawn', 'bn', '--cwd', work2], { env: fenv, encoding: 'utf8' });
    if (sp.status !== 0) throw new Error(`spawn: ${sp.stderr}`);
    const rowOf = () => {
      const dir = join(home, '.claude', 'sessions');
      for (const n of existsSync(dir) ? readdirSync(dir).filter((f) => /^\d+\.json$/.test(f)) : []) {
        try {
          const r = JSON.parse(readFileSync(join(dir, n), 'utf8'));
          if (r.kind === 'interactive' || r.kind === undefined) return r;
        } catch {}
      }
      return null;
    };
    await waitFor(() => rowOf()?.sessionId, 'the Driver row', 120_000);
    await waitFor(() => /─{20,}\n\s*[❯>]/.test(tmux(server.name, ['capture-pane', '-p', '-t', '=op-bn:'], { allowFail: true })), 'the prompt', 120_000);
    const lags = { wait: [], done: [] };
    const rounds = QUICK ? 1 : 3;
    for (let round = 0; round < rounds; round++) {
      const before = oscs().length;
      tmux(server.name, ['send-keys', '-t', '=op-bn:', '-l', `please list the root ${round}`]);
      await sleep(600);
      tmux(server.name, ['send-keys', '-t', '=op-bn:', 'Enter']);
      const waiting = await waitFor(() => (rowOf()?.status === 'waiting' ? rowOf() : null), 'the Driver waiting', 60_000);
      await waitFor(() => oscs().length > before, 'the wait notification', 20_000);
      const seenAt = Date.now();
      lags.wait.push(seenAt - waiting.statusUpdatedAt);
      // The channel's gap, so that the turn's end is said at once.
      await sleep(5200);
      const before2 = oscs().length;
      tmux(server.name, ['send-keys', '-t', '=op-bn:', 'Enter']);
      const idle = await waitFor(() => (rowOf()?.status === 'idle' ? rowOf() : null), 'the Driver idle', 60_000);
      await waitFor(() => oscs().slice(before2).some((t) => t.includes('finished')), 'the done notification', 20_000);
      lags.done.push(Date.now() - idle.statusUpdatedAt);
      await sleep(5200);
    }
    const said = oscs();
    const worst = Math.max(...lags.wait, ...lags.done);
    note(`| h | notification lag from the agent's own write (real Claude Code ${version}, hooks installed; OSC 9 read from a client's pty; ${rounds} rounds; polled every 50 ms) | wait ${lags.wait.map((x) => `${x} ms`).join(', ')}; done ${lags.done.map((x) => `${x} ms`).join(', ')} (e.g. "${said[0] ?? ''}") | < 1 s | ${worst < 1000 ? 'met' : 'OVER'} |`);
  } finally {
    if (client?.pid) {
      try {
        process.kill(-client.pid, 'SIGKILL');
      } catch {}
    }
    spawnSync(claude, ['daemon', 'stop', '--any'], { env, stdio: 'ignore', timeout: 30_000 });
    killServer(server);
    await model.close();
  }
}

// ---------------------------------------------------------------- i. a wait shown, the plugin loaded
// Issue 41's workload, beside part g's latency: the plugin loaded as TPM loads it
// (run-shell tmux-plugin.tmux: the supervisor it starts, its hooks), a client
// attached to the session whose row changes (a displayed session), and the
// rounds started in the supervisor's first seconds. Each round rewrites that
// row, renamed into place as Claude Code's writers do, to `waiting` with a new
// `waitingFor`, 0.3 s apart, and times until the session's @fleet-agent holds
// the new text. Polled two ways: a tmux client started per poll every 10 ms
// (issue 41's harness: each client costs the server more at 500 sessions) and
// one control-mode client (part g's way).
const WAIT_ROUNDS = num('BENCH_WAIT_ROUNDS', 20, 10);
async function benchWait() {
  const sizes = [
    [50, 200],
    [500, 2000],
  ].filter(([n]) => !process.env.BENCH_WAIT_SESSIONS || String(n) === process.env.BENCH_WAIT_SESSIONS);
  for (const [sessions, rows] of sizes) {
    const f = scaleFleet(sessions, rows);
    const env = { ...f.env };
    const target = f.flips[Math.floor(f.flips.length / 2)];
    const viewer = attachClient(f.server, target.name);
    try {
      await waitFor(() => tmux(f.server.name, ['list-clients', '-F', '#{client_session}'], { allowFail: true }).includes(target.name), 'the client');
      const t0 = Date.now();
      // The plugin of the build measured (BENCH_BIN's checkout), as TPM would run it.
      tmux(f.server.name, ['run-shell', join(dirname(BIN), '..', 'tmux-plugin.tmux')], { env });
      await waitFor(() => showAgent(f, target.name) !== '', `the first render at ${sessions} sessions`, 60_000);
      const firstRender = Date.now() - t0;
      const file = join(f.registry, `${target.pid}.json`);
      const rewrite = (text) => {
        target.status = 'waiting';
        target.waitingFor = text;
        target.updatedAt = target.statusUpdatedAt = Date.now();
        const tmp = join(f.registry, `.${target.pid}.json.tmp`);
        writeFileSync(tmp, JSON.stringify(target));
        renameSync(tmp, file);
      };
      const control = controlClient(f.server.name);
      const lat = { spawned: [], control: [] };
      for (let i = 0; i < WAIT_ROUNDS * 2; i++) {
        const how = i < WAIT_ROUNDS ? 'spawned' : 'control';
        await sleep(300);
        const text = `approve Bash: echo ${how}-${i}`;
        const t = process.hrtime.bigint();
        rewrite(text);
        const end = Date.now() + 5000;
        for (;;) {
          const shown = how === 'spawned' ? showAgent(f, target.name) : await control.query(`show-options -qv -t =${target.name}: @fleet-agent`);
          if (shown.includes(`echo ${how}-${i}`) || Date.now() > end) break;
          await sleep(how === 'spawned' ? 10 : 1);
        }
        lat[how].push(Number(process.hrtime.bigint() - t) / 1e6);
      }
      control.close();
      if (process.env.BENCH_VERBOSE === '1') console.error(sessions, JSON.stringify(lat));
      for (const how of ['spawned', 'control']) {
        const xs = lat[how];
        note(`| i | a wait shown (row renamed into place → @fleet-agent holds its text), ${sessions} sessions, ${rows} rows, the plugin loaded, its session displayed, from the first seconds; polled by ${how === 'spawned' ? 'a tmux client per poll, every 10 ms' : 'one control-mode client'}: p50 / p90 / max (${xs.length} rounds, 0.3 s apart) | **${pct(xs, 50).toFixed(0)} / ${pct(xs, 90).toFixed(0)} / ${Math.max(...xs).toFixed(0)} ms** | p50 ≤ 60 ms | ${pct(xs, 50) <= 60 ? 'met' : 'OVER'} |`);
      }
      const supPid = (() => {
        const run = join(f.home, 'run');
        const file = existsSync(run) ? readdirSync(run).find((n) => n.startsWith('supervisor-')) : undefined;
        return file ? Number(readFileSync(join(run, file), 'utf8').split(/\s/)[0]) : 0;
      })();
      const rss = supPid > 0 ? vmRssKb(supPid) / 1024 : 0;
      note(`| i | plugin load → the displayed session's first segment, ${sessions} sessions; the supervisor's RSS after the rounds | ${firstRender} ms; ${rss.toFixed(1)} MB | reference | |`);
      if (process.env.BENCH_HOLD_S) {
        console.error(`holding ${f.server.name} for ${process.env.BENCH_HOLD_S} s`);
        await sleep(Number(process.env.BENCH_HOLD_S) * 1000);
      }
    } finally {
      killServer(viewer);
      const pidFiles = existsSync(join(f.home, 'run')) ? readdirSync(join(f.home, 'run')).filter((n) => n.startsWith('supervisor-')) : [];
      for (const n of pidFiles) {
        const pid = Number(readFileSync(join(f.home, 'run', n), 'utf8').trim().split(/\s/)[0]);
        if (pid > 0) {
          try {
            process.kill(pid, 'SIGTERM');
          } catch {}
        }
      }
      killServer(f.server);
      for (const j of f.jobs) j.child.kill('SIGKILL');
    }
  }
}

// ---------------------------------------------------------------- main
const tmuxVersion = spawnSync(TMUX, ['-V'], { encoding: 'utf8' }).stdout.trim();
const straceVersion = STRACE ? spawnSync(STRACE, ['-V'], { encoding: 'utf8' }).stdout.split('\n')[0] : 'missing';
const header = [
  '# tmux-fleet benchmarks (`npm run bench`)',
  '',
  `- date: ${new Date().toISOString()}`,
  `- machine: ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}), load average at start ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`,
  `- node ${process.version}, ${tmuxVersion}, ${straceVersion}`,
  `- mode: ${QUICK ? 'BENCH_QUICK=1 (short windows)' : 'full'}; owner runs ${RUNS} per side; supervisor windows ${IDLE_S} s + ${CHURN_S} s; tree ${TREE_S} s`,
  `- build: ${BIN === join(root, 'dist', 'tmux-fleet.cjs') ? 'dist/tmux-fleet.cjs' : BIN}${existsSync(join(dirname(BIN), 'built-from')) ? ` (built from ${readFileSync(join(dirname(BIN), 'built-from'), 'utf8').trim()})` : ''}; the supervisor started as \`${Object.entries(PLUGIN_SUPERVISOR_ENV).map(([k, v]) => `${k}=${v} `).join('')}node ${supervisorNodeArgs().join(' ')}${supervisorNodeArgs().length ? ' ' : ''}tmux-fleet.cjs supervise\``,
  '',
  'Each figure is a ratio or a count taken within one run on a shared machine.',
  '',
  '| | measure | result | budget | |',
  '|---|---|---|---|---|',
];
console.log(header.join('\n'));
const only = (process.argv.slice(2).join('') || process.env.BENCH_ONLY || 'abcdefghi').split('');
let failed = false;
for (const [key, fn] of [['a', benchOwner], ['b', benchRedraw], ['c', benchSupervisor], ['d', benchSweep], ['f', benchTree], ['g', benchScale], ['h', benchNotify], ['i', benchWait]]) {
  if (!only.includes(key) && !(key === 'd' && only.includes('e'))) continue;
  try {
    await fn();
  } catch (err) {
    failed = true;
    note(`| ${key} | failed | ${String(err instanceof Error ? err.message : err).replace(/\|/g, '\\|').replace(/\n/g, ' ')} | | |`);
  }
}
const footnotes = [];
if (only.includes('g')) {
  footnotes.push(
    '',
    "Part g's two ways of writing a row differ in what the registry directory shows: Claude Code 2.1.333 rewrites its row in place (an inotify `change` of that file; the directory's mtime stays), while a row renamed into place (a temp file renamed over it, as the stand-in agent and issue 40's harness write) makes a name and replaces one, which moves the directory's mtime. Until issue 40 the poll took every new mtime for an event the watch had missed and had the next wake read and judge every row, and every turn that ended unseen (a busy row flipped to idle in a session no client shows) changed the fleet's attention count, written into every session: 500 options at 500 sessions. The earlier part g (1.1-1.35x) rewrote rows in place and ran before turns ended unseen were counted, so it saw neither; main's build just before the fix read 3.16x in place (the attention writes) and 4.03x renamed into place (both) in one run. Now a new mtime that the watch reported is explained (docs/status.md#the-supervisor) and the count is one global option (docs/status.md#attention): the two workloads cost about the same.",
  );
}
const text = `${header.join('\n')}\n${results.join('\n')}\n${footnotes.join('\n')}${footnotes.length ? '\n' : ''}`;
const outFile = process.env.BENCH_OUT || join(root, 'bench', 'results.md');
writeFileSync(outFile, text);
console.log(`\nwritten to ${outFile}`);
// Exit now: the live registry rows' sleep processes would keep the event loop up; cleanup runs on exit.
process.exit(failed ? 1 : 0);
