#!/usr/bin/env node
// `npm run demo`: tmux-fleet on a private tmux server, in one command.
//
//   tmux -L fleet-demo -f /dev/null   (FLEET_DEMO_SOCKET picks another name)
//
// A temp fleet home, Claude config dir and registry (never ~/.claude, never
// the real state dir) exported into the server's global environment; a status
// line using the tokens; the plugin loaded as TPM loads it (tmux-plugin.tmux
// run with $TMUX naming the server), which starts the supervisor. Then, through
// the real CLI, stand-in Drivers (test/fixtures/stand-in-agent.mjs):
//   op-fix-login      owns its task
//   op-add-search     pending: in its boot window (an agent that never gets
//                     as far as its registry row or its stamp)
//   op-migrate-db     its tab parked the work on background job e9e4ae8e,
//                     which waits for a permission (its state file, in Claude
//                     Code's words: approve Bash: npm run migrate)
//   review-fix-login  a second session bound to fix-login: another live owner
//
// In a terminal: attaches to op-fix-login; detaching (prefix d) ends the demo.
// Otherwise (CI, a pipe): prints each session's status line as an attached
// client shows it (a client attached from an outer private server, read with
// capture-pane), then cleans up. Either way the servers, the processes and the
// temp dirs go, also on failure.
//
// Flags: --restart (end a running server of that name first),
//        --capture <dir> (also render docs pictures: needs rsvg-convert and
//        DejaVu fonts; used by hand to make docs/*.png, never by the tests).
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { prefixHint } from './demo-hints.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const HELPER = join(ROOT, 'dist', 'tmux-fleet.cjs');
const PLUGIN = join(ROOT, 'tmux-plugin.tmux');
const STAND_IN = join(ROOT, 'test', 'fixtures', 'stand-in-agent.mjs');
const NODE = process.execPath;

const SOCKET = process.env.FLEET_DEMO_SOCKET || 'fleet-demo';
const VIEW = `${SOCKET}-view`;
// Wide enough for every segment whole: a narrower client shows the hop and the agent by
// their icons (docs/status.md#narrow-clients).
const WIDTH = 160;
const JOB = 'e9e4ae8e';

class DemoError extends Error {}

// ---------------------------------------------------------------- arguments

function parseArgs(argv) {
  const out = { restart: false, capture: null, help: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--restart') out.restart = true;
    else if (a === '--help' || a === '-h') out.help = true;
    else if (a === '--capture') {
      out.capture = argv[++i];
      if (!out.capture) throw new DemoError('--capture needs a directory');
    } else if (a.startsWith('--capture=')) out.capture = a.slice('--capture='.length);
    else throw new DemoError(`unknown argument ${a} (try --help)`);
  }
  return out;
}

const HELP = `usage: npm run demo [-- --restart] [-- --capture <dir>]
  A private tmux server (tmux -L ${SOCKET}; FLEET_DEMO_SOCKET picks another name)
  with the plugin and four stand-in agent sessions. In a terminal it attaches;
  otherwise it prints what each session's status line shows. Everything it
  starts is removed at the end.
  --restart         end a running server of that name first
  --capture <dir>   also write status-line.png, status-styles.png and dashboard.png (needs rsvg-convert)
`;

// ---------------------------------------------------------------- environment

/** The caller's environment without anything that names a tmux server, an agent session or a fleet home. */
function cleanEnv() {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined) continue;
    if (k === 'TMUX' || k === 'TMUX_PANE' || k.startsWith('TMUX_FLEET_') || k.startsWith('CLAUDE_') || k === 'FLEET_DEMO_SOCKET') continue;
    env[k] = v;
  }
  return env;
}

const BASE_ENV = cleanEnv();

/** A tmux command on a named private server; argv, no shell. */
function tmuxOn(name, args, opts = {}) {
  return execa('tmux', ['-L', name, ...args], { env: BASE_ENV, extendEnv: false, stdin: 'ignore', ...opts });
}
const tmux = (args, opts) => tmuxOn(SOCKET, args, opts);
const view = (args, opts) => tmuxOn(VIEW, args, opts);

/** Is a server of that name running? (display-message never starts one.) */
async function serverRunning(name) {
  const r = await tmuxOn(name, ['display-message', '-p', '#{pid}'], { reject: false });
  return r.exitCode === 0;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function waitUntil(fn, what, timeoutMs = 20_000, everyMs = 100) {
  const deadline = Date.now() + timeoutMs;
  let last;
  for (;;) {
    last = await fn();
    if (last) return last;
    if (Date.now() > deadline) throw new DemoError(`timed out after ${Math.round(timeoutMs / 1000)} s waiting for ${what}`);
    await sleep(everyMs);
  }
}

const shellQuote = (s) => `'${String(s).replace(/'/g, `'\\''`)}'`;
const oneLine = (s) => String(s ?? '').trim().split('\n').filter(Boolean).pop() ?? '';

// ---------------------------------------------------------------- state, cleanup

const state = {
  tmp: null,
  fleetEnv: null,
  startedServer: false,
  startedView: false,
  supervisorPidFile: null,
  cleaning: null,
};

/** Every process of ours still alive: the supervisor, the stand-ins and their jobs (registry rows). */
function ourPids() {
  const pids = new Set();
  if (state.supervisorPidFile) {
    try {
      const pid = Number(readFileSync(state.supervisorPidFile, 'utf8').trim().split(/\s+/)[0]);
      if (pid > 0) pids.add(pid);
    } catch {
      /* not written */
    }
  }
  if (state.fleetEnv) {
    try {
      for (const f of readdirSync(state.fleetEnv.TMUX_FLEET_REGISTRY)) {
        const m = /^(\d+)\.json$/.exec(f);
        if (m) pids.add(Number(m[1]));
      }
    } catch {
      /* no registry */
    }
  }
  return [...pids];
}

/** A pid that is still one of ours (its command line names our helper or the stand-in). */
function isOurs(pid) {
  try {
    const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return cmd.includes(HELPER) || cmd.includes(STAND_IN);
  } catch {
    return false;
  }
}

/** Idempotent: a second call (a signal during the first) waits for the first to finish. */
function cleanup() {
  state.cleaning ??= doCleanup();
  return state.cleaning;
}

async function doCleanup() {
  const pids = ourPids();
  // tmux leaves its socket file behind when its server is killed.
  const socketDir = join(process.env.TMUX_TMPDIR || '/tmp', `tmux-${process.getuid()}`);
  if (state.startedView) {
    await view(['kill-server'], { reject: false });
    await rm(join(socketDir, VIEW), { force: true });
  }
  if (state.startedServer) {
    await tmux(['kill-server'], { reject: false });
    await rm(join(socketDir, SOCKET), { force: true });
  }
  // The supervisor exits when its server goes; the stand-ins get SIGHUP, their
  // jobs see their stdin close. Whatever is still there after 3 s is ended.
  const deadline = Date.now() + 3000;
  while (pids.some(isOurs) && Date.now() < deadline) await sleep(100);
  for (const pid of pids.filter(isOurs)) {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      /* gone */
    }
  }
  if (state.tmp) await rm(state.tmp, { recursive: true, force: true }).catch(() => undefined);
}

for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, () => {
    cleanup().finally(() => process.exit(sig === 'SIGINT' ? 130 : 143));
  });
}

// ---------------------------------------------------------------- steps

async function checkTmux() {
  const r = await execa('tmux', ['-V'], { env: BASE_ENV, extendEnv: false, reject: false, stdin: 'ignore' });
  if (r.failed && r.code === 'ENOENT') throw new DemoError('tmux is not installed (the demo needs tmux 3.2 or later on PATH)');
  if (r.exitCode !== 0) throw new DemoError(`tmux -V failed: ${oneLine(r.stderr) || r.shortMessage}`);
  const m = /(\d+)\.(\d+)/.exec(r.stdout);
  if (m && (Number(m[1]) < 3 || (Number(m[1]) === 3 && Number(m[2]) < 2))) {
    throw new DemoError(`${r.stdout.trim()} is too old: the demo needs tmux 3.2 or later (display-popup)`);
  }
}

/** Whether dist/ holds a helper built from these sources (else loading the plugin would rebuild it with npm ci: docs/status.md#updates). */
async function helperCurrent() {
  if (!existsSync(HELPER)) return false;
  const inputs = await execa('bash', ['-c', '. "$1" && fleet_build_inputs', 'bash', join(ROOT, 'scripts', 'helpers.sh')], { reject: false });
  const built = await readFile(join(ROOT, 'dist', 'built-from'), 'utf8').catch(() => '');
  return inputs.exitCode === 0 && built.trim() === inputs.stdout.trim();
}

async function ensureHelper() {
  if (await helperCurrent()) return;
  process.stderr.write('tmux-fleet demo: building the helper (npm run build)...\n');
  const r = await execa(NODE, [join(ROOT, 'scripts', 'build.mjs')], { cwd: ROOT, reject: false, all: true, stdin: 'ignore' });
  if (r.exitCode !== 0 || !existsSync(HELPER)) {
    throw new DemoError(`building the helper failed (npm run build): ${oneLine(r.all) || r.shortMessage}`);
  }
}

async function checkNoServer(restart) {
  for (const name of [SOCKET, VIEW]) {
    if (!(await serverRunning(name))) continue;
    if (!restart) {
      throw new DemoError(
        `a tmux server named ${name} is already running (another demo?); end it with \`tmux -L ${name} kill-server\` or run \`npm run demo -- --restart\``,
      );
    }
    await tmuxOn(name, ['kill-server'], { reject: false });
    await waitUntil(async () => !(await serverRunning(name)), `the old ${name} server to end`, 5000);
  }
}

async function makeTemp() {
  state.tmp = await mkdtemp(join(tmpdir(), 'fleet-demo-'));
  const home = join(state.tmp, 'home');
  const claude = join(state.tmp, 'claude');
  const registry = join(claude, 'sessions');
  const project = join(state.tmp, 'project');
  for (const d of [home, registry, project]) mkdirSync(d, { recursive: true });
  state.fleetEnv = {
    TMUX_FLEET_HOME: home,
    CLAUDE_CONFIG_DIR: claude,
    TMUX_FLEET_REGISTRY: registry,
    TMUX_FLEET_BIN: HELPER,
    TMUX_FLEET_NODE: NODE,
  };
  return project;
}

/** The demo's status line: a dark theme (the pictures show tmux's default green one too). */
const DARK_STATUS_STYLE = 'bg=colour236,fg=colour252';

/** The demo server: no session yet (the Drivers make them), our environment and status line. */
async function startServer() {
  const setEnv = Object.entries(state.fleetEnv).flatMap(([k, v]) => [';', 'set-environment', '-g', k, v]);
  state.startedServer = true;
  const r = await tmux(
    [
      '-f', '/dev/null', 'start-server',
      ';', 'set-option', '-s', 'exit-empty', 'off',
      ...setEnv,
      ';', 'set-option', '-g', 'status-style', DARK_STATUS_STYLE,
      ';', 'set-option', '-g', 'status-left', '#[bold][#S]#[default] ',
      ';', 'set-option', '-g', 'status-left-length', '30',
      ';', 'set-option', '-g', 'status-right', '#{fleet_owner} #{fleet_hop} #{fleet_agent} %H:%M',
      ';', 'set-option', '-g', 'status-right-length', '90',
      ';', 'set-option', '-g', 'window-status-current-style', 'fg=colour39,bold',
    ],
    { reject: false },
  );
  if (r.exitCode !== 0) throw new DemoError(`cannot start the demo tmux server (tmux -L ${SOCKET}): ${oneLine(r.stderr)}`);
  const info = (await tmux(['display-message', '-p', '#{socket_path}\t#{pid}'])).stdout.trim();
  const [socketPath, pid] = info.split('\t');
  if (!socketPath || !pid) throw new DemoError(`cannot read the demo server's socket path and pid (got ${JSON.stringify(info)})`);
  return { socketPath, pid };
}

/** The plugin, as TPM runs it: the .tmux file as a program, $TMUX naming the server. */
async function loadPlugin({ socketPath, pid }) {
  const r = await execa(PLUGIN, [], {
    cwd: ROOT,
    env: { ...BASE_ENV, ...state.fleetEnv, TMUX: `${socketPath},${pid},0` },
    extendEnv: false,
    reject: false,
    all: true,
    stdin: 'ignore',
  });
  if (r.exitCode !== 0) throw new DemoError(`loading the plugin (tmux-plugin.tmux) failed: ${oneLine(r.all) || r.shortMessage}`);
  // The demo's own home serves one server: its supervisor's pid file is the only one there.
  const runDir = join(state.fleetEnv.TMUX_FLEET_HOME, 'run');
  const pidFile = () => {
    const name = existsSync(runDir) ? readdirSync(runDir).find((n) => n.startsWith('supervisor-') && n.endsWith('.pid')) : undefined;
    return name ? join(runDir, name) : null;
  };
  try {
    await waitUntil(() => (state.supervisorPidFile = pidFile()) !== null, 'the supervisor the plugin starts', 15_000);
  } catch (err) {
    const log = join(state.fleetEnv.TMUX_FLEET_HOME, 'log');
    const last = existsSync(log) ? oneLine(readFileSync(log, 'utf8')) : '';
    throw new DemoError(`${err.message}${last ? `; its log says: ${last}` : ''}`);
  }
}

/** The real CLI, aimed at the demo server and the temp home. */
async function fleet(args) {
  const r = await execa(NODE, [HELPER, ...args], {
    env: { ...BASE_ENV, ...state.fleetEnv, TMUX_FLEET_SOCKET: SOCKET },
    extendEnv: false,
    reject: false,
    input: '',
    timeout: 30_000,
  });
  if (r.exitCode !== 0) throw new DemoError(`tmux-fleet ${args.slice(0, 2).join(' ')} failed: ${oneLine(r.stderr) || oneLine(r.stdout) || r.shortMessage}`);
  return r.stdout;
}

const AGENT = `${shellQuote(NODE)} ${shellQuote(STAND_IN)}`;

async function spawnDriver(slug, label, prompt, cmd = AGENT) {
  const out = await fleet(['spawn', slug, '--json', '--cmd', cmd, '--cwd', state.project, '--label', label, '--prompt', prompt]);
  return JSON.parse(out).session;
}

const opt = async (session, name) => (await tmux(['show-options', '-qv', '-t', `=${session}:`, name], { reject: false })).stdout.trim();
const stampOf = (session) => waitUntil(() => opt(session, '@claude_session_id'), `the stand-in in ${session} to stamp`, 15_000);

async function type(session, text) {
  await tmux(['send-keys', '-t', `=${session}:`, '-l', text]);
  await tmux(['send-keys', '-t', `=${session}:`, 'Enter']);
}

/**
 * The demo sessions, in display order, each with what its status line must
 * show once the supervisor has written its segments.
 */
async function makeSessions() {
  const owner = await spawnDriver('fix-login', 'Fix the login page', 'The login form rejects valid passwords; find out why and fix it.');
  await stampOf(owner);

  const pending = await spawnDriver(
    'add-search',
    'Add search to the docs site',
    'Add a search box to the docs site.',
    // An agent still booting: no registry row and no stamp yet, so neither the
    // hook nor the supervisor's proof by ancestry can name it (it never finishes).
    `sh -c 'echo starting the agent...; exec sleep 86400'`,
  );

  const parked = await spawnDriver('migrate-db', 'Migrate the database', 'Write and run the migration for the new schema.');
  const parkedSid = await stampOf(parked);
  await type(parked, 'write and run the migration');
  await type(parked, `/park ${JOB} waiting permission prompt`);
  await type(parked, '/job-state blocked approve Bash: npm run migrate');

  // A second session bound to fix-login with a stamp of its own.
  const review = 'review-fix-login';
  await tmux([
    'new-session', '-d', '-s', review, '-x', String(WIDTH), '-y', '30', '-c', state.project,
    '-e', 'TMUX_FLEET_TASK=fix-login', '--', NODE, STAND_IN,
    ';', 'set-option', '-t', `=${review}:`, '@fleet-task', 'fix-login',
  ]);
  await stampOf(review);

  return [
    { session: owner, what: 'owns its task', expect: { owner: 'owner fix-login' } },
    { session: pending, what: 'in its boot window: the agent has not stamped yet', expect: { owner: 'add-search pending' } },
    {
      session: parked,
      what: `its tab parked the work on background job ${JOB}, which waits for a permission`,
      expect: { owner: 'owner migrate-db', hop: `${parkedSid.slice(0, 4)} → ${JOB.slice(0, 4)}`, agent: 'approve Bash: npm run migrate' },
    },
    { session: review, what: 'bound to fix-login, which another live session owns', expect: { owner: 'fix-login: owner ' } },
  ];
}

/** Until the supervisor has written every session's segments. */
async function waitForSegments(sessions) {
  let last = '';
  try {
    await waitUntil(async () => {
      const r = await tmux(['list-sessions', '-F', '#{session_name}\t#{@fleet-owner}\t#{@fleet-hop}\t#{@fleet-agent}'], { reject: false });
      last = r.stdout;
      const rows = new Map(r.stdout.split('\n').map((l) => l.split('\t')).map(([s, ...v]) => [s, v]));
      return sessions.every(({ session, expect }) => {
        const [owner = '', hop = '', agent = ''] = rows.get(session) ?? [];
        const got = { owner, hop, agent };
        return Object.entries(expect).every(([k, v]) => got[k].includes(v));
      });
    }, "the supervisor's status segments", 20_000);
  } catch (err) {
    throw new DemoError(`${err.message}; last seen: ${JSON.stringify(last.trim())}`);
  }
}

// ---------------------------------------------------------------- attached clients, read for real

async function startView() {
  state.startedView = true;
  await view(['-f', '/dev/null', 'start-server', ';', 'set-option', '-s', 'exit-empty', 'off', ';', 'set-option', '-g', 'default-terminal', 'screen-256color']);
}

/** A client of the demo server attached to `session`, inside a pane of the view server. */
async function attachViewer(name, session, width, height) {
  await view([
    'new-session', '-d', '-s', name, '-x', String(width), '-y', String(height),
    '--', 'env', '-u', 'TMUX', 'tmux', '-u', '-L', SOCKET, 'attach-session', '-t', `=${session}:`,
    ';', 'set-option', '-t', `=${name}:`, 'status', 'off',
  ]);
  await waitUntil(
    async () => (await tmux(['list-clients', '-t', `=${session}:`], { reject: false })).stdout.trim() !== '',
    `a client attached to ${session}`,
    10_000,
  );
}

async function capture(name, { ansi = false, line } = {}) {
  const args = ['capture-pane', '-p', '-t', `=${name}:`];
  if (ansi) args.push('-e', '-N');
  if (line !== undefined) args.push('-S', String(line), '-E', String(line));
  return (await view(args)).stdout;
}

const VIEW_HEIGHT = 6;

/** What each session's status line shows on an attached client. */
async function readStatusLines(sessions) {
  const lines = [];
  for (const [i, s] of sessions.entries()) {
    const name = `v${i}`;
    await attachViewer(name, s.session, WIDTH, VIEW_HEIGHT);
    const wanted = Object.values(s.expect);
    let last = '';
    try {
      await waitUntil(async () => {
        last = (await capture(name, { line: VIEW_HEIGHT - 1 })).replace(/\s+$/, '');
        return wanted.every((w) => last.includes(w)) ? last : '';
      }, `the status line of ${s.session}`, 15_000);
    } catch (err) {
      throw new DemoError(`${err.message}; it shows: ${JSON.stringify(last)}`);
    }
    lines.push({ ...s, text: last, ansi: (await capture(name, { ansi: true, line: VIEW_HEIGHT - 1 })).replace(/\n$/, '') });
  }
  return lines;
}

// ---------------------------------------------------------------- pictures (--capture)

async function capturePictures(dir, lines, sessions) {
  const { ansiToSvg, svgToPng } = await import('./ansi-svg.mjs');
  mkdirSync(dir, { recursive: true });

  // The status lines of the sessions, one under the other.
  const rows = lines.flatMap((l, i) => (i === 0 ? [l.ansi] : ['', l.ansi]));
  const statusSvg = join(state.tmp, 'status-line.svg');
  writeFileSync(statusSvg, ansiToSvg(rows, { cols: WIDTH, padRows: 0 }));
  await svgToPng(statusSvg, join(dir, 'status-line.png'));

  // The same status lines on tmux's own default status style (green, the demo's dark one unset): each badge must stand
  // out from both, and pending must not look like waiting (docs/status.md#segments).
  await tmux(['set-option', '-gu', 'status-style']);
  const onDefault = [];
  for (const [i, l] of lines.entries()) {
    let shown = '';
    await waitUntil(async () => (shown = (await capture(`v${i}`, { ansi: true, line: VIEW_HEIGHT - 1 })).replace(/\n$/, '')) !== l.ansi, `the status line of ${l.session} redrawn`, 10_000);
    onDefault.push(shown);
  }
  await tmux(['set-option', '-g', 'status-style', DARK_STATUS_STYLE]);
  const label = (text) => `\x1b[0;2m${text}\x1b[0m`;
  const stylesRows = [
    label("tmux's default status style"),
    ...onDefault.flatMap((a) => [a, '']),
    label(`a dark theme (status-style ${DARK_STATUS_STYLE})`),
    ...lines.flatMap((l, i) => (i === lines.length - 1 ? [l.ansi] : [l.ansi, ''])),
  ];
  const stylesSvg = join(state.tmp, 'status-styles.svg');
  writeFileSync(stylesSvg, ansiToSvg(stylesRows, { cols: WIDTH, padRows: 0.6 }));
  await svgToPng(stylesSvg, join(dir, 'status-styles.png'));

  // The dashboard (prefix F) over the parked Driver: an 80-column popup.
  for (let i = 0; i < sessions.length; i++) await view(['kill-session', '-t', `=v${i}:`], { reject: false });
  // Agents outside any task, for the dashboard only: a tab whose parked job waits for the user, and an agent at work.
  for (const [name, line] of [['scratch', '/park 45a15a22 waiting permission prompt'], ['notes', '/status busy']]) {
    await tmux(['new-session', '-d', '-s', name, '-x', String(WIDTH), '-y', '30', '-c', state.project, '-e', 'STAND_IN_NO_STAMP=1', '--', NODE, STAND_IN]);
    await sleep(1500);
    await type(name, line);
  }
  const parked = sessions[2].session;
  const [w, h] = [103, 26]; // the default popup (80% x 75%): 82 columns, 80 inside the border
  // The stand-in's own output is not what a Driver looks like: a blank pane behind the popup.
  await tmux(['send-keys', '-R', '-t', `=${parked}:`, ';', 'clear-history', '-t', `=${parked}:`]);
  await attachViewer('dash', parked, w, h);
  await sleep(300);
  await view(['send-keys', '-t', '=dash:', 'C-b', 'F']);
  let shown = '';
  await waitUntil(async () => /TASK[\s\S]*migrate-db[\s\S]*notes/.test((shown = await capture('dash'))), 'the dashboard popup', 15_000).catch((err) => {
    throw new DemoError(`${err.message}; it shows:\n${shown}`);
  });
  // Select the row of the session underneath (rows needing the user first, then tasks, then other agents).
  const rowsShown = (await capture('dash')).split('\n').filter((l) => /│  \S/.test(l) && !/TASK/.test(l));
  const down = rowsShown.findIndex((l) => l.includes(` ${parked} `));
  for (let i = 0; i < down; i++) await view(['send-keys', '-t', '=dash:', 'j']);
  await sleep(500);
  const screen = (await capture('dash', { ansi: true })).replace(/\n$/, '').split('\n');
  const dashSvg = join(state.tmp, 'dashboard.svg');
  writeFileSync(dashSvg, ansiToSvg(screen, { cols: w }));
  await svgToPng(dashSvg, join(dir, 'dashboard.png'));
  await view(['send-keys', '-t', '=dash:', 'q'], { reject: false });
  return [join(dir, 'status-line.png'), join(dir, 'status-styles.png'), join(dir, 'dashboard.png')];
}

// ---------------------------------------------------------------- main

async function main() {
  const args = parseArgs(process.argv.slice(2));
  if (args.help) {
    process.stdout.write(HELP);
    return 0;
  }
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(SOCKET)) throw new DemoError(`FLEET_DEMO_SOCKET must be a plain socket name (letters, digits, . _ -), not ${JSON.stringify(SOCKET)}`);
  const interactive = Boolean(process.stdout.isTTY && process.stdin.isTTY) && !args.capture;

  await checkTmux();
  await ensureHelper();
  await checkNoServer(args.restart);
  state.project = await makeTemp();
  const server = await startServer();
  await loadPlugin(server);
  const sessions = await makeSessions();
  await waitForSegments(sessions);

  if (interactive) {
    // The outer tmux (the one the user is in) is asked for its prefix: one read, with the caller's own $TMUX.
    const outer = process.env.TMUX
      ? (await execa('tmux', ['show-options', '-gv', 'prefix'], { reject: false, stdin: 'ignore' })).stdout.trim() || 'C-b'
      : null;
    process.stdout.write(
      `${prefixHint(SOCKET, outer)}\n` +
        `Try prefix F (dashboard), prefix O (this session's verdict), prefix s (switch sessions); prefix d ends the demo.\n`,
    );
    await sleep(2500);
    await execa('tmux', ['-L', SOCKET, 'attach-session', '-t', `=${sessions[0].session}:`], {
      env: BASE_ENV,
      extendEnv: false,
      stdio: 'inherit',
      reject: false,
    });
    await cleanup();
    process.stdout.write(`tmux-fleet demo ended: server ${SOCKET} and its temp files removed.\n`);
    return 0;
  }

  await startView();
  const lines = await readStatusLines(sessions);
  const out = [`tmux-fleet demo: the status line of each session on a private server (tmux -L ${SOCKET}), as an attached client shows it`, ''];
  for (const l of lines) out.push(`${l.session}: ${l.what}`, `  ${l.text}`, '');
  let pictures = [];
  if (args.capture) pictures = await capturePictures(resolve(args.capture), lines, sessions);
  const tmp = state.tmp;
  await cleanup();
  for (const p of pictures) out.push(`wrote ${p}`);
  out.push(`cleaned up: servers ${SOCKET} and ${VIEW}, the stand-in agents, the supervisor, ${tmp}`);
  process.stdout.write(`${out.join('\n')}\n`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  async (err) => {
    await cleanup().catch(() => undefined);
    const msg = err instanceof DemoError ? err.message : process.env.TMUX_FLEET_DEBUG === '1' ? err.stack : err?.message ?? String(err);
    process.stderr.write(`tmux-fleet demo: ${msg}\n`);
    process.exit(1);
  },
);
