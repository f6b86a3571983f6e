// One definition of every command's arguments. Both parsing paths (the small
// fast parser for the commands hooks call often, and yargs for the rest and
// for help) are built from this table. It is data only: the entry
// (src/cli/bin.ts) reads it to choose a bundle, and the modules that run each
// command are named in commands.ts and fast-commands.ts.
import type { CommandSpec, OptionSpec } from './types';

export type { Args, CommandModule, CommandSpec, OptionSpec, PositionalSpec } from './types';

export const GLOBAL_OPTIONS: Record<string, OptionSpec> = {
  home: { type: 'string', describe: 'fleet home (default $TMUX_FLEET_HOME, else $XDG_STATE_HOME/tmux-fleet)' },
  socket: { type: 'string', describe: 'tmux server socket name (-L); default $TMUX_FLEET_SOCKET' },
  'socket-path': { type: 'string', describe: 'tmux server socket path (-S); default $TMUX_FLEET_SOCKET_PATH' },
  json: { type: 'boolean', describe: 'print exactly one JSON object on stdout' },
};

const as: OptionSpec = { type: 'string', describe: 'the asking session id (default $CLAUDE_CODE_SESSION_ID, else the stamp of this tmux session)' };

export const COMMANDS: CommandSpec[] = [
  {
    name: 'spawn',
    describe: 'mint or respawn the Driver of a task in its own tmux session',
    positionals: [{ name: 'slug', describe: 'task slug', required: true }],
    options: {
      cmd: { type: 'string', describe: 'agent command (default: option @fleet-agent-cmd, else claude)' },
      cwd: { type: 'string', describe: 'directory the Driver starts in' },
      worktree: { type: 'boolean', describe: 'make a git worktree on branch fleet/<slug> for the task' },
      base: { type: 'string', describe: 'base ref of the worktree (default HEAD)' },
      label: { type: 'string', describe: 'human label of the task' },
      prompt: { type: 'string', describe: 'launch prompt text' },
      'prompt-file': { type: 'string', describe: 'read the launch prompt from a file' },
      accept: { type: 'string', array: true, describe: 'acceptance item (repeatable)' },
      parent: { type: 'string', describe: 'spawner session id (default: the stamp of this tmux session)' },
      replace: { type: 'boolean', describe: 'kill an existing session of that name first' },
      resume: { type: 'boolean', describe: 'respawn with claude --resume <previous driverSid>' },
    },
  },
  {
    name: 'stamp',
    describe: "Claude Code's SessionStart hook: stamp this tmux session with the agent's session id",
    positionals: [],
    options: { sid: { type: 'string', describe: 'session id (default: session_id of the hook JSON on stdin)' } },
    fast: true,
  },
  {
    name: 'sid-of-pane',
    describe: 'print the stamp (@claude_session_id) of a tmux session',
    positionals: [{ name: 'name', describe: 'tmux session name', required: true }],
    options: {},
    fast: true,
  },
  {
    name: 'owner',
    describe: 'the judge: 0 you own the task, 9 someone else does, 5 nobody can be named yet',
    positionals: [{ name: 'slug', describe: 'task slug', required: true }],
    options: { as },
    fast: true,
  },
  {
    name: 'sweep',
    describe: 'fill the owner of every pending task whose session carries its nonce and a stamp',
    positionals: [],
    options: {},
  },
  {
    name: 'takeover',
    describe: 'make the asker the Driver of a task (refused while the owner is live, unless --force)',
    positionals: [{ name: 'slug', describe: 'task slug', required: true }],
    options: { as, force: { type: 'boolean', describe: 'take over even from a live owner' } },
  },
  {
    name: 'tasks',
    describe: 'list every task: owner, verdict, liveness, hop, agent state, age',
    positionals: [],
    options: {},
  },
  {
    name: 'follow',
    describe: "the hop chain of a session through Claude Code's registry",
    positionals: [{ name: 'sid', describe: 'session id (default: the stamp of this tmux session)', required: false }],
    options: { watch: { type: 'boolean', describe: 'keep following and report every change' } },
  },
  {
    name: 'pointer',
    describe: "print the spawner-pointer line for a parent session, or nothing",
    positionals: [],
    options: { parent: { type: 'string', describe: 'spawner session id' } },
  },
  {
    name: 'doctor',
    describe: 'check tmux, the plugin, the supervisor, the registry, the hook and a session',
    positionals: [],
    options: { session: { type: 'string', describe: 'tmux session to check (default: this one)' } },
  },
  {
    name: 'supervise',
    describe: 'keep the status options of one tmux server true (started by the plugin)',
    positionals: [],
    options: { once: { type: 'boolean', describe: 'render once and exit' } },
  },
  {
    name: 'hooks',
    describe: 'add, remove or show the tmux-fleet SessionStart hook of Claude Code, Codex CLI and Gemini CLI',
    positionals: [{ name: 'action', describe: 'install, uninstall or status', required: true, choices: ['install', 'uninstall', 'status'] }],
    options: {
      agent: {
        type: 'string',
        array: true,
        choices: ['claude', 'codex', 'gemini'],
        describe: 'the agent (repeatable); default: Claude Code and every other agent whose configuration directory exists',
      },
    },
  },
  {
    name: 'dashboard',
    describe: 'all tasks and agent sessions; Enter switches to one, q quits',
    positionals: [],
    options: {},
  },
  {
    name: 'attention',
    describe: 'the agents waiting for you, longest first; --jump goes to the first',
    positionals: [],
    options: {
      jump: { type: 'boolean', describe: "switch to the longest-waiting agent (a job opens in a tmux window)" },
      client: { type: 'string', describe: 'the tmux client to move (default $TMUX_FLEET_CLIENT, else the current one)' },
    },
  },
];

export function findCommand(name: string | undefined): CommandSpec | undefined {
  return COMMANDS.find((c) => c.name === name);
}
