// Makes the V8 code cache of the fast bundle; scripts/build.mjs runs it in a
// child process: node scripts/code-cache.cjs <entry> <bundle> <out>.
// The bundle is compiled by the entry's own compileBundle, so the cache fits the
// way the entry loads it; it runs `owner` once on a decided task in a throw-away
// fleet home (no tmux call), so that the cache holds the functions that run, not
// only the top level (docs/budgets.md#the-code-cache).
const { mkdirSync, mkdtempSync, rmSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

const [entry, bundle, out] = process.argv.slice(2);
const { compileBundle } = require(entry);

const home = mkdtempSync(join(tmpdir(), 'fleet-code-cache-'));
const sid = '00000000-0000-4000-8000-000000000001';
const now = new Date().toISOString();
mkdirSync(join(home, 'tasks', 'decided'), { recursive: true, mode: 0o700 });
writeFileSync(join(home, 'tasks', 'decided', 'task.json'), JSON.stringify({ slug: 'decided', createdAt: now, updatedAt: now, driverSid: sid, driverPane: 'op-decided' }), { mode: 0o600 });
for (const name of ['TMUX', 'TMUX_PANE', 'CLAUDE_CODE_SESSION_ID', 'TMUX_FLEET_DEBUG', 'TMUX_FLEET_SOCKET', 'TMUX_FLEET_SOCKET_PATH']) delete process.env[name];
process.env.TMUX_FLEET_HOME = home;
process.env.TMUX_FLEET_REGISTRY = join(home, 'no-registry');

const { exports: fast, script } = compileBundle(bundle);
fast
  .main(['owner', 'decided', '--as', sid])
  .then((code) => {
    if (code !== 0) throw new Error(`owner on the decided task answered ${code}, not 0`);
    writeFileSync(out, script.createCachedData(), { mode: 0o644 });
  })
  .catch((err) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  })
  .finally(() => rmSync(home, { recursive: true, force: true }));
