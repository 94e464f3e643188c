import { createHash } from 'node:crypto'
import { isAbsolute, join, resolve } from 'node:path'
import { ConfigError } from './errors.js'

/**
 * Where agent-tui keeps its files (docs/configuration.md#files-agent-tui-keeps), computed from an environment object so tests can point
 * everything at temp dirs. Pure: nothing is created here.
 */

export interface AppPaths {
  /** `$XDG_CONFIG_HOME/agent-tui` (default `~/.config/agent-tui`). */
  configDir: string
  userSettingsFile: string
  /** `$XDG_STATE_HOME/agent-tui` (default `~/.local/state/agent-tui`). */
  stateDir: string
  /** Parent of the per-project session dirs. */
  sessionsRoot: string
  /** Parent of the per-session spilled-output dirs. */
  outputsRoot: string
  debugDir: string
  /** Pids of background jobs, so the next start can reap orphans left by a crash. */
  pidRegistryFile: string
  /** The user's answers to "do you trust this folder?", by real path. */
  trustStoreFile: string
  /** The `.agent-tui/settings.local.json` files agent-tui wrote, with a hash of what they held. */
  localSettingsLedgerFile: string
  /** `$XDG_DATA_HOME/agent-tui` (default `~/.local/share/agent-tui`): what the user installed. */
  dataDir: string
  /** Installed plugins, one folder each (`agent-tui plugin add`). */
  pluginsDir: string
  /** Marketplaces fetched from git, one folder each. */
  marketplacesDir: string
  /** The installed plugins and added marketplaces, and which plugins are enabled. */
  pluginRegistryFile: string
}

/** Environment variables the paths depend on. */
export type PathEnv = Readonly<Record<string, string | undefined>>

/**
 * Resolve the app paths. `home` is used when `env.HOME` is unset; relative XDG values are ignored, as
 * the XDG spec requires. Throws ConfigError when no home directory is known.
 */
export function resolvePaths(env: PathEnv, home?: string): AppPaths {
  const homeDir = nonEmpty(env.HOME) ?? home
  if (homeDir === undefined || homeDir === '') {
    throw new ConfigError('cannot find the home directory: set HOME (or XDG_CONFIG_HOME and XDG_STATE_HOME)')
  }
  const configHome = absoluteOrUndefined(env.XDG_CONFIG_HOME) ?? join(homeDir, '.config')
  const stateHome = absoluteOrUndefined(env.XDG_STATE_HOME) ?? join(homeDir, '.local', 'state')
  const configDir = join(configHome, 'agent-tui')
  const stateDir = join(stateHome, 'agent-tui')
  const dataDir = dataDirOf(env, homeDir)
  return {
    configDir,
    userSettingsFile: join(configDir, 'settings.json'),
    stateDir,
    sessionsRoot: join(stateDir, 'sessions'),
    outputsRoot: join(stateDir, 'outputs'),
    debugDir: join(stateDir, 'debug'),
    pidRegistryFile: join(stateDir, 'pids.json'),
    trustStoreFile: join(stateDir, 'trusted-folders.json'),
    localSettingsLedgerFile: join(stateDir, 'local-settings.json'),
    dataDir,
    pluginsDir: join(dataDir, 'plugins'),
    marketplacesDir: join(dataDir, 'marketplaces'),
    pluginRegistryFile: join(dataDir, 'plugins.json'),
  }
}

/** `$XDG_DATA_HOME/agent-tui`, else `~/.local/share/agent-tui` (a relative XDG value is ignored). */
export function dataDirOf(env: PathEnv, home: string): string {
  return join(absoluteOrUndefined(env.XDG_DATA_HOME) ?? join(home, '.local', 'share'), 'agent-tui')
}

const MAX_KEY_LENGTH = 80

/**
 * A file-name-safe key for a project directory: the absolute path with every character outside
 * `[A-Za-z0-9._-]` turned into `-` (`/work/main` → `-work-main`). Long paths keep their tail and get
 * a short hash of the full path. Different paths can still share one (`/x/my-app`, `/x/my/app`): see
 * `uniqueProjectKey`.
 */
export function projectKey(cwd: string): string {
  const abs = resolve(cwd)
  const key = abs.replace(/[^A-Za-z0-9._-]/g, '-')
  if (key.length <= MAX_KEY_LENGTH) return key
  const hash = createHash('sha256').update(abs).digest('hex').slice(0, 8)
  return `${key.slice(key.length - (MAX_KEY_LENGTH - hash.length - 1))}-${hash}`
}

/**
 * A key no other directory shares: `projectKey` plus a hash of the path (`/x/my-app` and `/x/my/app` have
 * the same `projectKey`). For state that must never mix between projects, such as checkpoints.
 */
export function uniqueProjectKey(cwd: string): string {
  return `${projectKey(cwd)}-${createHash('sha256').update(resolve(cwd)).digest('hex').slice(0, 8)}`
}

/** Directory of the session logs of the project at `cwd` (sessions carry their cwd; readers check it). */
export function sessionsDir(paths: AppPaths, cwd: string): string {
  return join(paths.sessionsRoot, projectKey(cwd))
}

/** Directory of the spilled outputs of one session. Throws ConfigError for ids that are not plain names. */
export function outputsDir(paths: AppPaths, sessionId: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(sessionId)) {
    throw new ConfigError(`invalid session id "${sessionId}": use letters, digits, ".", "_" and "-" only`)
  }
  return join(paths.outputsRoot, sessionId)
}

/** The project's settings files (`.agent-tui/settings.json`, committed; `.agent-tui/settings.local.json`, not). */
export function projectSettingsPaths(cwd: string): { dir: string; project: string; local: string } {
  const dir = join(resolve(cwd), '.agent-tui')
  return { dir, project: join(dir, 'settings.json'), local: join(dir, 'settings.local.json') }
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value
}

function absoluteOrUndefined(value: string | undefined): string | undefined {
  return value !== undefined && isAbsolute(value) ? value : undefined
}
