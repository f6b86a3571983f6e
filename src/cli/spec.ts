// One definition of every command's arguments: the parser (parse.ts), the help
// (help.ts) and the reference in docs/cli.md (scripts/cli-reference.mjs) are
// made from this table. It is data only: the entry
// (src/cli/bin.ts) reads it to choose a bundle, and the modules that run each
// command are named in commands.ts and fast-commands.ts.
import { didYouMean } from '../suggest';
import { echoInput } from '../text';
import type { CommandSpec, OptionSpec } from './types';

export type { Args, CommandModule, CommandSpec, OptionSpec, PositionalSpec } from './types';

export const GLOBAL_OPTIONS: Record<string, OptionSpec> = {
  home: { type: 'string', describe: 'fleet home (default $TMUX_FLEET_HOME, else ${XDG_STATE_HOME:-~/.local/state}/tmux-fleet)' },
  socket: { type: 'string', describe: 'tmux server socket name (-L); default $TMUX_FLEET_SOCKET' },
  'socket-path': { type: 'string', describe: 'tmux server socket path (-S); default $TMUX_FLEET_SOCKET_PATH' },
  json: { type: 'boolean', describe: 'print exactly one JSON object on stdout' },
};

const as: OptionSpec = { type: 'string', describe: 'the asking session id (default $CLAUDE_CODE_SESSION_ID, else the stamp of this tmux session)' };

export const COMMANDS: CommandSpec[] = [
  {
    name: 'spawn',
    describe: 'mint or respawn the Driver of a task in its own tmux session',
    docs: 'ownership.md#spawn',
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
    docs: 'ownership.md#the-stamp',
    positionals: [],
    options: { sid: { type: 'string', describe: 'session id (default: session_id of the hook JSON on stdin)' } },
    fast: true,
    hook: true,
  },
  {
    name: 'event',
    describe: "the agents' state hook (permission waits, turns, the end of a session): keep what the agent said last for the status line",
    docs: 'ownership.md#what-each-agent-tells',
    positionals: [],
    options: { agent: { type: 'string', choices: ['claude', 'codex', 'gemini'], describe: 'the agent whose hook this is (required)' } },
    fast: true,
    hook: true,
  },
  {
    name: 'sid-of-pane',
    describe: 'print the stamp (@claude_session_id) of a tmux session; exit 1 when it has none or there is no such session',
    positionals: [{ name: 'name', describe: 'tmux session name', required: true }],
    options: {},
    fast: true,
  },
  {
    name: 'owner',
    describe: 'the judge: 0 you own the task, 9 someone else does, 5 nobody can be named yet',
    docs: 'ownership.md#the-judge',
    positionals: [{ name: 'slug', describe: 'task slug', required: true }],
    options: { as },
    fast: true,
  },
  {
    name: 'sweep',
    describe: 'fill the owner of every pending task whose session carries its nonce and a stamp',
    docs: 'ownership.md#sweep',
    positionals: [],
    options: {},
  },
  {
    name: 'takeover',
    describe: 'make the asker the Driver of a task (refused while the owner is live, unless --force)',
    docs: 'ownership.md#takeover',
    positionals: [{ name: 'slug', describe: 'task slug', required: true }],
    options: { as, force: { type: 'boolean', describe: 'take over even from a live owner' } },
  },
  {
    name: 'tasks',
    describe: 'list every task that is not archived: owner, verdict, liveness, session, hop, agent state, age, repository and branch',
    docs: 'status.md#dashboard',
    positionals: [],
    options: {
      archived: { type: 'boolean', describe: 'list the archived tasks instead (done, gc): when, how, and what became of the branch' },
      group: { type: 'boolean', describe: 'group the tasks by repository' },
    },
  },
  {
    name: 'done',
    describe:
      "finish a task: its acceptance items confirmed, its Driver asked to exit its own way and its session closed, its worktree removed (refused with uncommitted changes), its branch merged (--merge), kept, or dropped (--discard), and the task archived",
    docs: 'ownership.md#done',
    positionals: [{ name: 'slug', describe: 'task slug (none with --gone)', required: false }],
    options: {
      yes: { type: 'boolean', describe: 'confirm every acceptance item (needed without a terminal)' },
      merge: { type: 'boolean', describe: 'merge the task branch into the branch it was made from, in the main checkout (refused on a conflict or a dirty main checkout)' },
      discard: { type: 'boolean', describe: 'delete the task branch even with commits its base lacks (they are named)' },
      force: { type: 'boolean', describe: 'stop a live Driver that is not the asker' },
      gone: { type: 'boolean', describe: 'what gc does: every task whose Driver is gone and whose worktree is clean and merged' },
      as,
    },
  },
  {
    name: 'gc',
    describe: 'archive every task whose Driver is gone and whose worktree is clean and merged (its worktree removed, its merged branch deleted), after a list and a confirmation',
    docs: 'ownership.md#gc',
    positionals: [],
    options: { yes: { type: 'boolean', describe: 'archive them without asking (needed without a terminal)' } },
  },
  {
    name: 'reopen',
    describe: 'bring an archived task back (its worktree too, while its branch is there)',
    docs: 'ownership.md#reopen',
    positionals: [{ name: 'slug', describe: 'task slug', required: true }],
    options: { resume: { type: 'boolean', describe: "respawn its Driver in its last conversation (spawn --resume)" } },
  },
  {
    name: 'label',
    describe: "set a task's label (\"\" removes it)",
    docs: 'tasks.md#keys',
    positionals: [
      { name: 'slug', describe: 'task slug', required: true },
      { name: 'text', describe: 'the label, one line', required: true },
    ],
    options: {},
  },
  {
    name: 'send',
    describe:
      "type a prompt into a Driver's pane as its agent takes one (a multi-line prompt pasted as one message), or into a background job through claude attach; refused while the agent waits for an approval",
    docs: 'ownership.md#send',
    positionals: [
      { name: 'target', describe: "a task slug, its Driver's tmux session, or a background job id", required: true },
      { name: 'text', describe: 'the prompt (- reads it from stdin)', required: false },
    ],
    options: { file: { type: 'string', describe: 'read the prompt from a file (- for stdin)' } },
  },
  {
    name: 'follow',
    describe: "the hop chain of a session through Claude Code's registry",
    docs: 'hop.md#follow',
    positionals: [
      { name: 'sid', describe: 'a session id, a tmux session name (its stamp), a task (its Driver), or the unique start of a session id (default: the stamp of this tmux session)', required: false },
    ],
    options: { watch: { type: 'boolean', describe: 'follow every stamped session of the server live and print each change (with a sid: only its chain)' } },
  },
  {
    name: 'pointer',
    describe: "print the spawner-pointer line for a parent session, or nothing",
    docs: 'worktrees-and-pointer.md#the-pointer',
    positionals: [],
    options: { parent: { type: 'string', describe: 'spawner session id' } },
  },
  {
    name: 'doctor',
    describe: "check tmux, the plugin, node, the helper's build, the supervisor, the registry, the hooks and a session (✖ broken: exit 1; – a note)",
    docs: 'hop.md#doctor',
    positionals: [],
    options: { session: { type: 'string', describe: 'tmux session to check (default: this one)' } },
  },
  {
    name: 'supervise',
    describe: 'keep the status options of one tmux server true (started by the plugin)',
    docs: 'status.md#the-supervisor',
    positionals: [],
    options: {
      once: { type: 'boolean', describe: 'render once and exit' },
      replace: { type: 'boolean', describe: "stop this server's running supervisor and take its place (a new build's)" },
    },
  },
  {
    name: 'hooks',
    describe:
      "add, remove or show the tmux-fleet SessionStart hook of Claude Code, Codex CLI (with the trust its config.toml records) and Gemini CLI: every other key and hook kept, backed up first, idempotent, one line per agent",
    docs: 'ownership.md#agents',
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
    name: 'restore',
    describe:
      "after a restart: every task whose Driver is gone gets its session again and its agent resuming the conversation it last had (parked work: its background job's); refused tasks are named with why",
    docs: 'ownership.md#restore',
    positionals: [{ name: 'slug', describe: 'the tasks to restore (default: every task whose Driver is gone)', required: false, variadic: true }],
    options: { 'dry-run': { type: 'boolean', describe: 'list what would be restored, and what is refused and why; change nothing' } },
  },
  {
    name: 'dashboard',
    describe: 'the popup: tasks, parked tabs, background jobs and agents outside any task, those waiting for you first; Enter switches to one, q quits',
    docs: 'status.md#dashboard',
    positionals: [],
    options: {},
  },
  {
    name: 'attention',
    describe: 'the agents waiting for you, longest first; --jump goes to the first',
    docs: 'status.md#attention',
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

/** The usage error's text for a name no command has, with the command it is likely a typo of. */
export function unknownCommandMessage(name: string): string {
  return `unknown command ${echoInput(name)}${didYouMean(name, COMMANDS.map((c) => c.name))} (see tmux-fleet --help)`;
}
