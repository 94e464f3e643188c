import { realpath } from 'node:fs/promises'
import { relative, resolve } from 'node:path'
import type { z } from 'zod'
import { parseRule, type Rule } from '../permissions/rules.js'
import { ConfigError } from './errors.js'
import { cleanJsonMessage, locateJsonError } from './json-error.js'
import { projectSettingsPaths, resolvePaths } from './app-paths.js'
import { type McpServerSettings, mcpServerSchema, type Settings, settingsSchema } from './schema.js'
import { readConfigText } from '../tools/instruction-file.js'
import { type ClaudeCodePaths, claudeCodePaths } from './claude-code.js'
import { translateClaudeSettings } from './claude-settings.js'

/**
 * Reads and merges the settings files, lowest precedence first: Claude Code's (`~/.claude/settings.json`,
 * `.claude/settings.json`, `.claude/settings.local.json`), then agent-tui's own: user →
 * `.agent-tui/settings.json` → `.agent-tui/settings.local.json` (later wins). Missing files are fine;
 * anything invalid in agent-tui's own files is a ConfigError naming the file, the key path and what was
 * expected; Claude Code's files are read leniently (config/claude-settings.ts).
 */

export type SettingsScope = 'user' | 'project' | 'local'

export interface SettingsSource {
  scope: SettingsScope
  path: string
  /** Short name for messages: `.agent-tui/settings.json`, `~/.config/agent-tui/settings.json`. */
  label: string
  exists: boolean
  /** The file's own (validated) settings; `{}` when it does not exist. */
  settings: Settings
  /** One of Claude Code's settings files, read as agent-tui settings (config/claude-settings.ts). */
  claudeCode?: {
    /** `key (why)` for what it sets that agent-tui does not use. */
    ignored: string[]
    /** Its `model`, when that names a model (not a tier). */
    preferredModel?: string
    /** Why the file could not be read at all (invalid JSON, not a regular file). */
    unreadable?: string
  }
}

export interface SourcedRules {
  allow: Rule[]
  ask: Rule[]
  deny: Rule[]
}

export interface LoadedSettings {
  /** All files merged: scalars from the highest file that sets them, rule lists concatenated. */
  merged: Settings
  /**
   * Lowest precedence first: Claude Code's user, project and local files (`claudeCode` set), then
   * agent-tui's user, project and local files.
   */
  sources: SettingsSource[]
  /** Every rule of every file, parsed, with `source` set to the file's label. */
  rules: SourcedRules
  /** Where "allow always" decisions are saved. */
  localSettingsPath: string
}

export interface LoadSettingsOptions {
  cwd: string
  env: Readonly<Record<string, string | undefined>>
  home: string
  /** Read Claude Code's settings files too (false: `--no-claude-dirs`). Default true. */
  claudeDirs?: boolean
}

/** Load all settings files. Throws ConfigError (never anything else for bad content). */
export async function loadSettings(opts: LoadSettingsOptions): Promise<LoadedSettings> {
  const paths = resolvePaths(opts.env, opts.home)
  const project = projectSettingsPaths(opts.cwd)
  const homeDir = opts.env.HOME || opts.home
  const files: Array<{ scope: SettingsScope; path: string; label: string }> = [
    { scope: 'user', path: paths.userSettingsFile, label: tildify(paths.userSettingsFile, homeDir) },
    { scope: 'project', path: project.project, label: relative(opts.cwd, project.project) },
    { scope: 'local', path: project.local, label: relative(opts.cwd, project.local) },
  ]
  const own = await Promise.all(
    files.map(async (file): Promise<SettingsSource> => {
      const text = await readOptional(file.path)
      if (text === undefined) return { ...file, exists: false, settings: {} }
      return { ...file, exists: true, settings: parseSettingsText(text, file.path) }
    }),
  )
  // The user's own "claudeDirs": false means not even reading them; a project's is applied with trust.
  const userOff = own[0]?.settings.claudeDirs === false
  const claude =
    opts.claudeDirs === false || userOff
      ? []
      : await readClaudeSettingsFiles(claudeCodePaths(opts.env, homeDir, opts.cwd), opts.cwd, homeDir)
  const sources = [...claude, ...own]
  return {
    merged: mergeSettings(sources.map((s) => s.settings)),
    sources,
    rules: collectRules(sources),
    localSettingsPath: project.local,
  }
}

/** Every rule of every settings file, parsed, lowest precedence first, with the file as its source. */
export function collectRules(sources: readonly Pick<SettingsSource, 'settings' | 'label'>[]): SourcedRules {
  const rules: SourcedRules = { allow: [], ask: [], deny: [] }
  for (const source of sources) {
    for (const kind of ['allow', 'ask', 'deny'] as const) {
      for (const text of source.settings.permissions?.[kind] ?? [])
        rules[kind].push(parseRule(text, source.label))
    }
  }
  return rules
}

/** Parse and validate one settings file's text. `file` is used in error messages. */
export function parseSettingsText(text: string, file: string): Settings {
  const body = text.replace(/^\uFEFF/, '')
  if (body.trim() === '') return {}
  let json: unknown
  try {
    json = JSON.parse(body)
  } catch (err) {
    const at = locateJsonError(body)
    const where = at ? `${file}:${at.line}:${at.column}` : file
    throw new ConfigError(`${where}: invalid JSON: ${cleanJsonMessage((err as Error).message)}`, {
      file,
      cause: err,
    })
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new ConfigError(`${file}: expected a JSON object at the top level`, { file })
  }
  const result = settingsSchema.safeParse(json)
  if (result.success) return result.data
  const problems = result.error.issues.flatMap(describeIssue)
  const first = problems[0]!
  const message =
    problems.length === 1
      ? `${file}: ${first.keyPath || '(top level)'}: ${first.message}`
      : `invalid settings in ${file}:\n${problems.map((p) => `  ${p.keyPath || '(top level)'}: ${p.message}`).join('\n')}`
  return fail(message, file, first.keyPath)
}

function fail(message: string, file: string, keyPath: string): never {
  throw new ConfigError(message, keyPath === '' ? { file } : { file, keyPath })
}

const TOP_LEVEL_KEYS = Object.keys(settingsSchema.shape)

function describeIssue(issue: z.core.$ZodIssue): Array<{ keyPath: string; message: string }> {
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => {
      const suggestion = issue.path.length === 0 ? closest(key, TOP_LEVEL_KEYS) : undefined
      const hint = suggestion ? ` (did you mean "${suggestion}"?)` : ''
      return { keyPath: formatKeyPath([...issue.path, key]), message: `unknown key "${key}"${hint}` }
    })
  }
  const message = issue.message.replace(
    /^(Invalid input|Invalid option|Too small|Too big|Invalid string|Invalid number): /,
    '',
  )
  return [{ keyPath: formatKeyPath(issue.path), message }]
}

/** `permissions.allow[2]`, `models["qwen*"].contextLimit`. */
export function formatKeyPath(path: readonly PropertyKey[]): string {
  let out = ''
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`
    else if (typeof key === 'string' && /^[A-Za-z_$][\w$]*$/.test(key)) out += out === '' ? key : `.${key}`
    else out += `[${JSON.stringify(String(key))}]`
  }
  return out
}

/**
 * Merge settings layers, lowest precedence first. Scalars: the last layer that sets them wins.
 * Rule lists concatenate. `models` merge per pattern and field; `circuitBreaker` and
 * `contextManagement` and `mcp` per field; `mcpServers`, `keybindings`, `headers`, `enabledPlugins` and `env` per
 * entry; `search` as a whole;
 * `hooks` concatenate per event.
 */
export function mergeSettings(layers: readonly Settings[]): Settings {
  const merged: Settings = {}
  for (const layer of layers) {
    const {
      permissions,
      additionalDirectories,
      models,
      circuitBreaker,
      contextManagement,
      mcpServers,
      mcp,
      keybindings,
      hooks,
      env,
      headers,
      enabledPlugins,
      ...scalars
    } = layer
    Object.assign(merged, scalars)
    if (additionalDirectories) {
      merged.additionalDirectories = [...(merged.additionalDirectories ?? []), ...additionalDirectories]
    }
    if (permissions) {
      const base = merged.permissions ?? {}
      merged.permissions = {
        allow: [...(base.allow ?? []), ...(permissions.allow ?? [])],
        ask: [...(base.ask ?? []), ...(permissions.ask ?? [])],
        deny: [...(base.deny ?? []), ...(permissions.deny ?? [])],
      }
    }
    if (models) {
      const next = { ...merged.models }
      for (const [pattern, profile] of Object.entries(models))
        next[pattern] = { ...next[pattern], ...profile }
      merged.models = next
    }
    if (circuitBreaker) merged.circuitBreaker = { ...merged.circuitBreaker, ...circuitBreaker }
    if (contextManagement) merged.contextManagement = { ...merged.contextManagement, ...contextManagement }
    if (mcpServers) merged.mcpServers = { ...merged.mcpServers, ...mcpServers }
    if (mcp) merged.mcp = { ...merged.mcp, ...mcp }
    if (keybindings) merged.keybindings = { ...merged.keybindings, ...keybindings }
    if (env) merged.env = { ...merged.env, ...env }
    if (headers) merged.headers = { ...merged.headers, ...headers }
    if (enabledPlugins) merged.enabledPlugins = { ...merged.enabledPlugins, ...enabledPlugins }
    if (hooks) {
      const next = { ...merged.hooks }
      for (const [event, groups] of Object.entries(hooks)) next[event] = [...(next[event] ?? []), ...groups]
      merged.hooks = next
    }
  }
  return merged
}

/**
 * Without Claude Code's files: what a `"claudeDirs": false` in a trusted project file turns off (the
 * user's own is applied before they are read).
 */
export function withoutClaudeCode(loaded: LoadedSettings): LoadedSettings {
  if (loaded.merged.claudeDirs !== false || !loaded.sources.some((s) => s.claudeCode)) return loaded
  const sources = loaded.sources.filter((s) => !s.claudeCode)
  return {
    ...loaded,
    sources,
    merged: mergeSettings(sources.map((s) => s.settings)),
    rules: collectRules(sources),
  }
}

/** `~/.claude.json` holds Claude Code's history too: a heavy user's is several megabytes. */
const CLAUDE_STATE_BYTES = 32 * 1024 * 1024

/**
 * `~/.claude.json`: only its MCP servers (read when the MCP servers start, off the first frame's path) — the user's (`mcpServers`) and this folder's
 * (`projects["/abs/path"].mcpServers`, Claude Code's "local" servers, which win a name). The user's
 * own file, so they need no trust; the rest of the file (history, account) is not looked at.
 */
export async function readClaudeState(path: string, cwd: string, label: string): Promise<SettingsSource> {
  const base = { scope: 'user' as const, path, label }
  const read = await readConfigText(path, CLAUDE_STATE_BYTES)
  if (read.kind === 'missing') return { ...base, exists: false, settings: {}, claudeCode: { ignored: [] } }
  if (read.kind === 'refused')
    return { ...base, exists: true, settings: {}, claudeCode: { ignored: [], unreadable: read.reason } }
  let json: unknown
  try {
    json = JSON.parse(read.text.replace(/^\uFEFF/, ''))
  } catch (err) {
    const why = `invalid JSON: ${cleanJsonMessage((err as Error).message)}`
    return { ...base, exists: true, settings: {}, claudeCode: { ignored: [], unreadable: why } }
  }
  const ignored: string[] = []
  const servers: Record<string, McpServerSettings> = {}
  const take = (value: unknown, at: string) => {
    if (value === undefined) return
    if (!isPlainObject(value)) return void ignored.push(`${at} (expected {"name": {"command": …}})`)
    for (const [name, spec] of Object.entries(value)) {
      const checked = mcpServerSchema.safeParse(spec)
      if (checked.success) servers[name] = checked.data
      else ignored.push(`${at}.${name} (${checked.error.issues[0]?.message ?? 'invalid'})`)
    }
  }
  const top = isPlainObject(json) ? json : {}
  take(top.mcpServers, 'mcpServers')
  const projects = isPlainObject(top.projects) ? top.projects : {}
  const real = await realpath(cwd).catch(() => cwd)
  const key = [resolve(cwd), real].find((k) => isPlainObject(projects[k]))
  if (key)
    take((projects[key] as Record<string, unknown>).mcpServers, `projects[${JSON.stringify(key)}].mcpServers`)
  const settings: Settings = Object.keys(servers).length > 0 ? { mcpServers: servers } : {}
  return { ...base, exists: true, settings, claudeCode: { ignored } }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * Claude Code's three settings files, lowest precedence first; each as far as it can be read.
 * (`~/.claude.json`, which can be megabytes, is read later, when MCP servers start: readClaudeState.)
 */
async function readClaudeSettingsFiles(
  paths: ClaudeCodePaths,
  cwd: string,
  home: string,
): Promise<SettingsSource[]> {
  const files: Array<{ scope: SettingsScope; path: string; label: string }> = [
    { scope: 'user', path: paths.userSettings, label: tildify(paths.userSettings, home) },
    { scope: 'project', path: paths.projectSettings, label: relative(cwd, paths.projectSettings) },
    { scope: 'local', path: paths.projectLocalSettings, label: relative(cwd, paths.projectLocalSettings) },
  ]
  return Promise.all(
    files.map(async (file): Promise<SettingsSource> => {
      const read = await readConfigText(file.path)
      if (read.kind === 'missing')
        return { ...file, exists: false, settings: {}, claudeCode: { ignored: [] } }
      if (read.kind === 'refused')
        return { ...file, exists: true, settings: {}, claudeCode: { ignored: [], unreadable: read.reason } }
      const body = read.text.replace(/^\uFEFF/, '')
      if (body.trim() === '') return { ...file, exists: true, settings: {}, claudeCode: { ignored: [] } }
      let json: unknown
      try {
        json = JSON.parse(body)
      } catch (err) {
        const at = locateJsonError(body)
        const where = at ? ` at ${at.line}:${at.column}` : ''
        const why = `invalid JSON${where}: ${cleanJsonMessage((err as Error).message)}`
        return { ...file, exists: true, settings: {}, claudeCode: { ignored: [], unreadable: why } }
      }
      const { settings, ignored, preferredModel } = translateClaudeSettings(json)
      return {
        ...file,
        exists: true,
        settings,
        claudeCode: { ignored, ...(preferredModel ? { preferredModel } : {}) },
      }
    }),
  )
}

async function readOptional(file: string): Promise<string | undefined> {
  const read = await readConfigText(file)
  if (read.kind === 'missing') return undefined
  if (read.kind === 'refused') throw new ConfigError(`cannot read ${file}: ${read.reason}`, { file })
  return read.text
}

function tildify(path: string, home: string): string {
  const rel = relative(home, path)
  return rel.startsWith('..') || rel === path ? path : `~/${rel}`
}

/** The known key closest to `key` (edit distance ≤ 2), for "did you mean" hints. */
function closest(key: string, known: readonly string[]): string | undefined {
  let best: string | undefined
  let bestDistance = 3
  for (const candidate of known) {
    const d = editDistance(key.toLowerCase(), candidate.toLowerCase())
    if (d < bestDistance) {
      best = candidate
      bestDistance = d
    }
  }
  return best
}

/** Optimal-string-alignment distance: Levenshtein plus adjacent transpositions ("modle" → "model"). */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  )
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, d[i - 2]![j - 2]! + 1)
      d[i]![j] = best
    }
  }
  return d[a.length]![b.length]!
}
