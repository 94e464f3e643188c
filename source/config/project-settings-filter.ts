import { describeHookEntries } from '../user-hooks/hook-settings.js'
import { isSandboxTightening, normalizeSandbox, type SandboxSetting } from '../sandbox/settings.js'
import type { Mode } from '../store/domain.js'
import { collectRules, type LoadedSettings, mergeSettings, type SettingsSource } from './load.js'
import type { Settings } from './schema.js'

/**
 * What a settings file the repository brought (`.agent-tui/settings.json`, or a `settings.local.json`
 * that is tracked by git) may do while its folder is not trusted: only lower permissions. Pure.
 *
 * - allow rules are ignored; ask and deny rules always apply;
 * - `mode` is kept only when it is at least as strict as the user's own (or the default, SAFE);
 * - numeric caps (`maxSteps`, `circuitBreaker`) are kept only when they are not above the user's own;
 * - settings that could raise permissions, run code or send data elsewhere wait for trust;
 * - the rest (model choice, profiles, theme…) cannot do either and is kept.
 */

export type SettingPolicy =
  /** Cannot raise permissions, run anything or send data anywhere new. */
  | 'keep'
  /** Ignored until the folder is trusted. */
  | 'trusted-only'
  /** `mode`, `sandbox`: kept when at least as strict as the user's. */
  | 'stricter-only'
  /** Caps: kept when not above the user's (or the default). */
  | 'lower-only'
  /** Kept less the fields that say where data is sent and with whose key (`embeddings`). */
  | 'no-endpoint'

/**
 * One line per key, so a new setting needs a decision. Keys missing here (added to the schema later)
 * are trusted-only until someone decides otherwise: the safe default.
 */
export const SETTING_POLICY: Readonly<Record<string, SettingPolicy>> = {
  $schema: 'keep',
  model: 'keep',
  summarizerModel: 'keep',
  // Windows and capabilities; but `textToolCalls: true` makes more of the model's text run as calls.
  models: 'lower-only',
  theme: 'keep',
  contextManagement: 'keep',
  // A timeout only ever denies.
  consentTimeoutSeconds: 'keep',
  // How often the same endpoint is asked again.
  retry: 'keep',
  // MCP timeouts: how long to wait for servers the user's own settings (or trust) started.
  mcp: 'keep',
  // How many subagents run at once on the same endpoint: load, not permissions.
  agents: 'keep',
  // Which definitions wait behind ToolSearch: bytes per request, not permissions.
  deferTools: 'keep',
  mode: 'stricter-only',
  maxSteps: 'lower-only',
  circuitBreaker: 'lower-only',
  // Where the conversation (and the code in it) is sent, and with whose key.
  baseUrl: 'trusted-only',
  apiKey: 'trusted-only',
  // Names the environment variable whose value is sent to `baseUrl` as the key.
  apiKeyEnv: 'trusted-only',
  // Sent to the endpoint with every request: a key, a route, whose account pays.
  headers: 'trusted-only',
  // `apiKeyEnv` names an environment variable whose value is sent to `url`.
  search: 'trusted-only',
  // Ignored unless the user's own settings turn CodeSearch on; then the model may be chosen, but `baseUrl`,
  // `apiKey` and `apiKeyEnv` would send the workspace's code (and a key) to another host, so they wait for
  // trust. Without them the chat endpoint serves the embeddings.
  embeddings: 'no-endpoint',
  // Start processes / run commands.
  mcpServers: 'trusted-only',
  hooks: 'trusted-only',
  // Runs a command on every change of the session, outside the sandbox.
  statusLine: 'trusted-only',
  // Turn on the user's installed plugins (their hooks and MCP servers) for this folder.
  enabledPlugins: 'trusted-only',
  extraKnownMarketplaces: 'trusted-only',
  // Would switch off the user's own hooks (a guard that blocks `rm`, say).
  disableAllHooks: 'trusted-only',
  // Rebinding the permission prompt's keys could turn "deny" into "allow".
  keybindings: 'trusted-only',
  // What the keys typed at the prompt do (`dd` deletes in vim mode): the user's own choice.
  editorMode: 'trusted-only',
  // Could silence the bell that says a permission prompt waits.
  notifications: 'trusted-only',
  // Widen what the agent may read and write.
  additionalDirectories: 'trusted-only',
  // Replaces the user's own list (a later layer wins), so it could bring back a tool the user left out.
  tools: 'trusted-only',
  // Kept when it keeps the user's sandbox on and takes the network away; never to switch it on or off
  // (on, auto mode runs commands without asking — see isSandboxTightening).
  sandbox: 'stricter-only',
  // Off would drop the user's own ~/.claude/settings.json guards (a PreToolUse hook that blocks rm).
  claudeDirs: 'trusted-only',
  // Variables for every command: PATH, NODE_OPTIONS, LD_PRELOAD run code.
  env: 'trusted-only',
}

export type IgnoredKind = 'allow-rule' | 'setting' | 'mcp-server' | 'hook'

/** One thing a repository's settings file asks for that is ignored while the folder is untrusted. */
export interface IgnoredSetting {
  kind: IgnoredKind
  /** What the user sees: `Bash(npm test *)`, `"mode": "dangerous"`, `db (npx db-mcp)`. */
  label: string
  /** The file's label, e.g. `.agent-tui/settings.json`. */
  file: string
  /** The top-level settings key it comes from (`permissions`, `mode`, `mcpServers`…). */
  key: string
}

export interface SettingsBaseline {
  /** Step cap when no file sets one. */
  maxSteps: number
  /** Circuit-breaker limits when no file sets them. */
  breaker: { warnAt: number; pauseAt: number; hardStopAt: number; silentBehavior: string }
}

export interface FilterOptions {
  /** Whether the folder is trusted: then nothing is filtered. */
  trusted: boolean
  /** Whether a source was brought by the repository. */
  projectBrought(source: SettingsSource): boolean
  baseline: SettingsBaseline
}

export interface FilteredSettings {
  loaded: LoadedSettings
  ignored: IgnoredSetting[]
}

/** Strictness for `stricter-only`: plan and ci never run anything unasked; dangerous asks nothing. */
const MODE_STRICTNESS: Record<Mode, number> = { dangerous: 0, auto: 1, safe: 2, plan: 3, ci: 3 }
/** Headless behaviour at the pause limit: continuing is looser than stopping or failing. */
const SILENT_STRICTNESS: Record<string, number> = { 'warn-and-continue': 0, stop: 1, error: 1 }
const BREAKER_CAPS = ['warnAt', 'pauseAt', 'hardStopAt', 'perToolLimit', 'maxDurationSeconds'] as const

export function filterProjectSettings(loaded: LoadedSettings, opts: FilterOptions): FilteredSettings {
  if (opts.trusted || !loaded.sources.some((s) => s.exists && opts.projectBrought(s))) {
    return { loaded, ignored: [] }
  }
  const own = loaded.sources.filter((s) => !opts.projectBrought(s))
  const ownMerged = mergeSettings(own.map((s) => s.settings))
  const ignored: IgnoredSetting[] = []
  const sources = loaded.sources.map((source): SettingsSource => {
    if (!source.exists || !opts.projectBrought(source)) return source
    const kept = filterOne(source, ownMerged, opts.baseline, ignored)
    return { ...source, settings: kept }
  })
  return {
    loaded: {
      ...loaded,
      merged: mergeSettings(sources.map((s) => s.settings)),
      sources,
      rules: collectRules(sources),
    },
    ignored,
  }
}

function filterOne(
  source: SettingsSource,
  own: Settings,
  baseline: SettingsBaseline,
  ignored: IgnoredSetting[],
): Settings {
  const file = source.label
  const kept: Record<string, unknown> = {}
  const ignore = (key: string, label: string, kind: IgnoredKind = 'setting') =>
    ignored.push({ kind, label, file, key })
  for (const [key, value] of Object.entries(source.settings)) {
    if (value === undefined) continue
    if (key === 'permissions') {
      const permissions = value as NonNullable<Settings['permissions']>
      for (const rule of permissions.allow ?? []) ignore(key, rule, 'allow-rule')
      const { allow: _dropped, ...rest } = permissions
      kept.permissions = rest
      continue
    }
    const policy = SETTING_POLICY[key] ?? 'trusted-only'
    if (policy === 'keep') kept[key] = value
    else if (policy === 'stricter-only') {
      if (isStricter(key, value, own)) kept[key] = value
      else ignore(key, `"${key}": ${shorten(JSON.stringify(value))}`)
    } else if (policy === 'lower-only') {
      const result = lowerOnly(key, value, own, baseline)
      if (result.kept !== undefined) kept[key] = result.kept
      for (const label of result.ignored) ignore(key, label)
    } else if (policy === 'no-endpoint' && isObject(value) && !ownModel(own, key)) {
      // Only the user turns CodeSearch on: an untrusted repository would have its tree embedded on their key.
      ignore(key, `"${key}" (your own settings turn it on: ${key}.model)`)
    } else if (policy === 'no-endpoint' && isObject(value)) {
      const fields: Record<string, unknown> = value
      const endpoint = ENDPOINT_FIELDS.filter((field) => fields[field] !== undefined)
      // The URL is shown (the user may want it); a key is only named.
      for (const field of endpoint)
        ignore(
          key,
          field === 'baseUrl' ? `"${key}.baseUrl": ${shorten(String(fields.baseUrl))}` : `"${key}.${field}"`,
        )
      kept[key] = Object.fromEntries(Object.entries(fields).filter(([field]) => !endpoint.includes(field)))
    } else describeTrustedOnly(key, value, ignore)
  }
  return kept as Settings
}

/** Whether the user's own settings already set `<key>.model` (what turns a `no-endpoint` feature on). */
function ownModel(own: Settings, key: string): boolean {
  const mine = (own as Record<string, unknown>)[key]
  return isObject(mine) && typeof mine.model === 'string' && mine.model !== ''
}

/** Where a `no-endpoint` setting's data goes and with whose key. */
const ENDPOINT_FIELDS = ['baseUrl', 'apiKey', 'apiKeyEnv']

/** For `stricter-only` keys: whether a project's value is at least as strict as the user's own. */
function isStricter(key: string, value: unknown, own: Settings): boolean {
  if (key === 'mode') return MODE_STRICTNESS[value as Mode] >= MODE_STRICTNESS[own.mode ?? 'safe']
  if (key === 'sandbox') {
    return isSandboxTightening(normalizeSandbox(own.sandbox), normalizeSandbox(value as SandboxSetting))
  }
  // A stricter-only key without a comparison here cannot be judged: wait for trust.
  return false
}

function lowerOnly(
  key: string,
  value: unknown,
  own: Settings,
  baseline: SettingsBaseline,
): { kept: unknown; ignored: string[] } {
  if (key === 'maxSteps') {
    const limit = own.maxSteps ?? baseline.maxSteps
    return (value as number) <= limit
      ? { kept: value, ignored: [] }
      : { kept: undefined, ignored: [`"maxSteps": ${value}`] }
  }
  if (key === 'circuitBreaker') {
    const breaker = value as NonNullable<Settings['circuitBreaker']>
    const mine: Record<string, unknown> = { ...baseline.breaker, ...own.circuitBreaker }
    const kept: Record<string, unknown> = {}
    const ignored: string[] = []
    for (const cap of BREAKER_CAPS) {
      const v = breaker[cap]
      if (v === undefined) continue
      const limit = mine[cap]
      if (typeof limit !== 'number' || v <= limit) kept[cap] = v
      else ignored.push(`"circuitBreaker.${cap}": ${v}`)
    }
    if (breaker.silentBehavior !== undefined) {
      const minePolicy = String(mine.silentBehavior ?? 'stop')
      if ((SILENT_STRICTNESS[breaker.silentBehavior] ?? 0) >= (SILENT_STRICTNESS[minePolicy] ?? 1))
        kept.silentBehavior = breaker.silentBehavior
      else ignored.push(`"circuitBreaker.silentBehavior": ${JSON.stringify(breaker.silentBehavior)}`)
    }
    return { kept: Object.keys(kept).length > 0 ? kept : undefined, ignored }
  }
  if (key === 'models' && isObject(value)) {
    const kept: Record<string, unknown> = {}
    const ignored: string[] = []
    for (const [pattern, profile] of Object.entries(value)) {
      if (!isObject(profile) || profile.textToolCalls !== true) {
        kept[pattern] = profile
        continue
      }
      const { textToolCalls: _on, ...rest } = profile
      kept[pattern] = rest
      ignored.push(`"models.${pattern}.textToolCalls": true`)
    }
    return { kept, ignored }
  }
  // A lower-only key without a comparison here cannot be judged: wait for trust.
  return { kept: undefined, ignored: [`"${key}"`] }
}

function describeTrustedOnly(
  key: string,
  value: unknown,
  ignore: (key: string, label: string, kind?: IgnoredKind) => void,
): void {
  if (key === 'mcpServers' && isObject(value)) {
    for (const [name, server] of Object.entries(value))
      ignore(key, describeServer(name, server), 'mcp-server')
    return
  }
  if (key === 'hooks' && isObject(value)) {
    for (const label of describeHookEntries(value)) ignore(key, label, 'hook')
    return
  }
  // Secrets are named, never shown.
  if (key === 'apiKey') ignore(key, '"apiKey"')
  // The whole command, as the trust prompt shows a hook's: it is what would run.
  else if (key === 'statusLine' && isObject(value) && typeof value.command === 'string')
    ignore(key, `statusLine: ${value.command}`, 'hook')
  else if (key === 'headers' && isObject(value)) ignore(key, `"headers": ${Object.keys(value).join(', ')}`)
  else if (key === 'enabledPlugins' && isObject(value))
    ignore(key, `"enabledPlugins": ${Object.keys(value).join(', ')}`)
  else if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
    ignore(key, `"${key}": ${shorten(JSON.stringify(value))}`)
  else ignore(key, `"${key}"`)
}

/** `name (command arg…)` or `name (url)`, as the trust prompt and notices list an MCP server. */
export function describeServer(name: string, server: unknown, max = 70): string {
  if (!isObject(server)) return name
  if (typeof server.command === 'string') {
    const args = Array.isArray(server.args) ? server.args.filter((a) => typeof a === 'string') : []
    const env = isObject(server.env) ? Object.keys(server.env) : []
    // The variables' names, never their values (a token); a name like NODE_OPTIONS changes what runs.
    const withEnv = env.length > 0 ? `, env ${env.join(', ')}` : ''
    const cwd = typeof server.cwd === 'string' ? `, in ${server.cwd}` : ''
    return `${name} (${shorten([server.command, ...args].map(shellQuoted).join(' '), max)}${withEnv}${cwd})`
  }
  if (typeof server.url === 'string') return `${name} (${shorten(server.url, max)})`
  return name
}

/** A word as a shell would need it: `'a b'` for one argument holding a space, so the argv is readable. */
function shellQuoted(word: string): string {
  return /^[\w@%+=:,./~-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`
}

function shorten(text: string, max = 70): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
