// What a caller's environment must not decide in a test: a user running the
// suite from a tmux pane has TMUX and TMUX_PANE, and the plugin exports
// TMUX_FLEET_REGISTRY into every pane of a server with @fleet-registry. Each
// test sets the ones it depends on; everything else starts unset.
/** Variables the helper, the plugin, the stand-in agent or Claude Code read. */
export const CALLER_ENV_VARS = [
  'TMUX',
  'TMUX_PANE',
  'TMUX_FLEET_SOCKET',
  'TMUX_FLEET_SOCKET_PATH',
  'TMUX_FLEET_HOME',
  'TMUX_FLEET_REGISTRY',
  'TMUX_FLEET_DEBUG',
  'TMUX_FLEET_DEBUG_THROW',
  'TMUX_FLEET_BIN',
  'TMUX_FLEET_TASK',
  'TMUX_FLEET_CLIENT',
  'TMUX_FLEET_NODE',
  'TMUX_FLEET_BUILD_CMD',
  'CLAUDE_CONFIG_DIR',
  'CLAUDE_CODE_SESSION_ID',
  'CODEX_HOME',
  'GEMINI_CLI_HOME',
] as const;

/**
 * Variables no test observes that make every process the suite starts slower.
 * Node reads the NODE_EXTRA_CA_CERTS bundle at each start, before any script
 * runs: about 80 ms of CPU per `node` here (35 ms without it), and the suite
 * starts some 900 of them. Nothing it starts opens a TLS connection.
 */
export const COSTLY_ENV_VARS = ['NODE_EXTRA_CA_CERTS'] as const;

/** Every variable a test file starts without. */
export const UNSET_IN_TESTS: readonly string[] = [...CALLER_ENV_VARS, ...COSTLY_ENV_VARS];

/** process.env without the caller's fleet variables: a base for a child's environment. */
export function cleanEnv(): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...process.env };
  for (const name of UNSET_IN_TESTS) delete env[name];
  return env;
}
