import { hooksSettingsSchema } from '../user-hooks/hook-settings.js'
import { parseRule } from '../permissions/rules.js'
import type { Mode } from '../store/domain.js'
import { type Settings, settingsSchema } from './schema.js'

/**
 * A Claude Code settings file (`~/.claude/settings.json`, `.claude/settings.json`,
 * `.claude/settings.local.json`) read as agent-tui settings: what has a meaning here is mapped, the rest
 * is named once with the reason it is ignored (docs/coming-from-claude-code.md#settings). Never throws: the
 * file is Claude Code's, so nothing in it may stop agent-tui from starting. Pure.
 */

export interface ClaudeSettings {
  /** What maps, as agent-tui settings (validated). */
  settings: Settings
  /**
   * Claude Code's `model` when it names a model rather than a tier: the endpoint's model is this one
   * when nothing else chooses one and the endpoint lists it (config/endpoint.ts).
   */
  preferredModel?: string
  /** `key (why)` for each key that is not used, once each. */
  ignored: string[]
}

/** `permissions.defaultMode` → agent-tui's mode (docs/permissions.md#modes). */
const MODES: Readonly<Record<string, Mode>> = {
  default: 'safe',
  acceptEdits: 'auto',
  plan: 'plan',
  bypassPermissions: 'dangerous',
  // Nobody is asked: what would ask is denied, as in ci.
  dontAsk: 'ci',
}

/** Claude Code's model tiers and aliases: they name no model of another endpoint. */
const MODEL_ALIASES = /^(default|best|sonnet|opus|haiku|opusplan)(\[1m\])?$/i

const NO_EQUIVALENT = 'a Claude Code preference with no agent-tui equivalent'
const MANAGED = 'a managed-policy setting; agent-tui has no managed settings'

/** Why each known key that does not map is ignored. */
const IGNORED_WHY: Readonly<Record<string, string>> = {
  apiKeyHelper: 'the endpoint key is "apiKey" or OPENAI_API_KEY in agent-tui',
  awsAuthRefresh: 'Bedrock credentials; agent-tui talks to an OpenAI-compatible endpoint',
  awsCredentialExport: 'Bedrock credentials; agent-tui talks to an OpenAI-compatible endpoint',
  gcpAuthRefresh: 'Vertex credentials; agent-tui talks to an OpenAI-compatible endpoint',
  otelHeadersHelper: 'agent-tui sends no telemetry',
  cleanupPeriodDays: 'agent-tui keeps sessions until you delete them',
  includeCoAuthoredBy: 'agent-tui adds no co-author line to commits',
  includeGitInstructions: 'agent-tui adds no git instructions to the prompt',
  attribution: 'agent-tui adds no co-author line to commits',
  statusLine: 'agent-tui has no status-line command',
  outputStyle: 'agent-tui has no output styles',
  forceLoginMethod: 'Anthropic account login',
  forceLoginOrgUUID: 'Anthropic account login',
  enableAllProjectMcpServers: "a trusted folder's .mcp.json servers start in agent-tui",
  enabledMcpjsonServers: "a trusted folder's .mcp.json servers start in agent-tui",
  disabledMcpjsonServers: "a trusted folder's .mcp.json servers start in agent-tui (stop one with /mcp)",
  mcpServers: 'Claude Code reads MCP servers from .mcp.json and ~/.claude.json, and so does agent-tui',
  allowedMcpServers: MANAGED,
  deniedMcpServers: MANAGED,
  allowManagedHooksOnly: MANAGED,
  allowManagedPermissionRulesOnly: MANAGED,
  strictKnownMarketplaces: MANAGED,
  companyAnnouncements: NO_EQUIVALENT,
  theme: 'agent-tui has its own "theme" setting',
  alwaysThinkingEnabled: NO_EQUIVALENT,
  effortLevel: NO_EQUIVALENT,
  spinnerTipsEnabled: NO_EQUIVALENT,
  spinnerTipsOverride: NO_EQUIVALENT,
  spinnerVerbs: NO_EQUIVALENT,
  editorMode: NO_EQUIVALENT,
  preferredNotifChannel: NO_EQUIVALENT,
  verbose: NO_EQUIVALENT,
  autoUpdates: NO_EQUIVALENT,
  autoUpdatesChannel: NO_EQUIVALENT,
  feedbackSurveyRate: NO_EQUIVALENT,
  respectGitignore: 'Glob and Grep always respect .gitignore in agent-tui',
  autoCompactEnabled: 'set "contextManagement" in agent-tui settings',
  language: NO_EQUIVALENT,
  showTurnDuration: NO_EQUIVALENT,
  terminalProgressBarEnabled: NO_EQUIVALENT,
  skipDangerousModePermissionPrompt: NO_EQUIVALENT,
}

const PERMISSION_KEYS_IGNORED: Readonly<Record<string, string>> = {
  disableBypassPermissionsMode: MANAGED,
  disableAutoMode: MANAGED,
}

/** Reads one Claude Code settings file's parsed JSON. */
export function translateClaudeSettings(json: unknown): ClaudeSettings {
  const ignored: string[] = []
  const ignore = (key: string, why: string) => ignored.push(`${key} (${why})`)
  if (!isObject(json)) return { settings: {}, ignored: ['(top level) (expected a JSON object)'] }
  const out: Record<string, unknown> = {}
  let preferredModel: string | undefined
  for (const [key, value] of Object.entries(json)) {
    if (key === '$schema') continue
    if (key === 'permissions') readPermissions(value, out, ignore)
    else if (key === 'hooks') readHooks(value, out, ignore)
    else if (key === 'disableAllHooks') {
      if (typeof value === 'boolean') out.disableAllHooks = value
      else ignore(key, 'expected true or false')
    } else if (key === 'env') readEnv(value, out, ignore)
    else if (key === 'model') {
      if (typeof value !== 'string' || value.trim() === '') ignore(key, 'expected a model name')
      else if (MODEL_ALIASES.test(value.trim()))
        ignore(key, `"${value}" is a Claude Code model tier, not a model of this endpoint`)
      else preferredModel = value.trim()
    } else if (key === 'sandbox') readSandbox(value, out, ignore)
    else if (key === 'enabledPlugins') readEnabledPlugins(value, out, ignore)
    else if (key === 'extraKnownMarketplaces') {
      // Kept as agent-tui's own key: named at start, never fetched (plugins/session-plugins.ts).
      if (isObject(value)) out.extraKnownMarketplaces = value
      else ignore(key, 'expected an object of marketplaces')
    } else ignore(key, IGNORED_WHY[key] ?? 'not a Claude Code setting agent-tui knows')
  }
  const checked = settingsSchema.safeParse(out)
  // Each piece was checked on its own above; a failure here is a bug in this mapping, not the file.
  const settings = checked.success ? checked.data : {}
  if (!checked.success) ignore('(the mapped settings)', checked.error.issues[0]?.message ?? 'invalid')
  return { settings, ignored, ...(preferredModel ? { preferredModel } : {}) }
}

/**
 * `{"name@marketplace": true}`: the same switches as agent-tui's own `enabledPlugins` (they turn plugins
 * installed in agent-tui on or off, never install one; a repository's wait for trust like any of its
 * settings). An entry that is not true or false is named, the others kept.
 */
function readEnabledPlugins(
  value: unknown,
  out: Record<string, unknown>,
  ignore: (key: string, why: string) => void,
): void {
  if (!isObject(value)) {
    ignore('enabledPlugins', 'expected an object such as {"name@marketplace": true}')
    return
  }
  const switches: Record<string, boolean> = {}
  for (const [id, on] of Object.entries(value)) {
    if (typeof on === 'boolean') switches[id] = on
    else
      ignore(
        `enabledPlugins.${id}`,
        `expected true or false; agent-tui plugin enable ${id.split('@')[0]} turns it on`,
      )
  }
  if (Object.keys(switches).length > 0) out.enabledPlugins = switches
}

function readPermissions(
  value: unknown,
  out: Record<string, unknown>,
  ignore: (key: string, why: string) => void,
): void {
  if (!isObject(value)) {
    ignore('permissions', 'expected an object')
    return
  }
  const permissions: Record<string, string[]> = {}
  for (const [key, list] of Object.entries(value)) {
    const at = `permissions.${key}`
    if (key === 'allow' || key === 'ask' || key === 'deny') {
      if (!Array.isArray(list)) {
        ignore(at, 'expected a list of rules')
        continue
      }
      const rules: string[] = []
      for (const [i, rule] of list.entries()) {
        if (typeof rule !== 'string') {
          ignore(`${at}[${i}]`, 'expected a rule such as "Bash(npm test *)"')
          continue
        }
        try {
          parseRule(rule)
          rules.push(rule)
        } catch (err) {
          ignore(`${at}[${i}]`, (err as Error).message)
        }
      }
      permissions[key] = rules
    } else if (key === 'defaultMode') {
      const mode = typeof list === 'string' ? MODES[list] : undefined
      if (mode) out.mode = mode
      else
        ignore(
          at,
          typeof list === 'string'
            ? `"${list}" has no agent-tui mode (modes: safe, auto, plan, dangerous, ci)`
            : 'expected a mode name',
        )
    } else if (key === 'additionalDirectories') {
      const dirs = Array.isArray(list)
        ? list.filter((d): d is string => typeof d === 'string' && d !== '')
        : []
      if (dirs.length > 0) out.additionalDirectories = dirs
      if (!Array.isArray(list) || dirs.length !== list.length)
        ignore(at, 'expected a list of directory paths')
    } else ignore(at, PERMISSION_KEYS_IGNORED[key] ?? 'not a permission setting agent-tui knows')
  }
  if (Object.keys(permissions).length > 0) out.permissions = permissions
}

function readHooks(
  value: unknown,
  out: Record<string, unknown>,
  ignore: (key: string, why: string) => void,
): void {
  if (!isObject(value)) {
    ignore('hooks', 'expected {"Event": [{"matcher", "hooks"}]}')
    return
  }
  const hooks: Record<string, unknown> = {}
  for (const [event, groups] of Object.entries(value)) {
    // One event at a time, so one malformed event does not take the others with it.
    const checked = hooksSettingsSchema.safeParse({ [event]: groups })
    if (checked.success) hooks[event] = checked.data[event]
    else {
      const issue = checked.error.issues[0]
      const where = issue?.path.slice(1).join('.') ?? ''
      ignore(`hooks.${event}${where ? `.${where}` : ''}`, issue?.message ?? 'invalid')
    }
  }
  if (Object.keys(hooks).length > 0) out.hooks = hooks
}

function readEnv(
  value: unknown,
  out: Record<string, unknown>,
  ignore: (key: string, why: string) => void,
): void {
  if (!isObject(value)) {
    ignore('env', 'expected {"NAME": "value"}')
    return
  }
  const env: Record<string, string> = {}
  for (const [name, v] of Object.entries(value)) {
    // Claude Code writes numbers and booleans unquoted at times ("BASH_MAX_TIMEOUT_MS": 600000).
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') env[name] = String(v)
    else ignore(`env.${name}`, 'expected a string value')
  }
  if (Object.keys(env).length > 0) out.env = env
}

function readSandbox(
  value: unknown,
  out: Record<string, unknown>,
  ignore: (key: string, why: string) => void,
): void {
  if (!isObject(value)) {
    ignore('sandbox', 'expected an object')
    return
  }
  for (const key of Object.keys(value)) {
    if (key === 'enabled') continue
    ignore(
      `sandbox.${key}`,
      key === 'network'
        ? 'the agent-tui sandbox has no per-domain network: it is off unless agent-tui\'s "sandbox" setting says "network": true'
        : 'the agent-tui sandbox has no such setting',
    )
  }
  if (typeof value.enabled === 'boolean') out.sandbox = value.enabled ? 'workspace-write' : 'off'
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
