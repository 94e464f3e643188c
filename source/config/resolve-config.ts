import { type CollectedHooks, collectHooks } from '../user-hooks/hook-settings.js'
import { parseRule, type Rule } from '../permissions/rules.js'
import { resolveSandbox, type SandboxConfig } from '../sandbox/settings.js'
import { MODES, type Mode } from '../store/domain.js'
import { ConfigError, UsageError } from './errors.js'
import type { OutputFormat, ParsedArgs } from './flags.js'
import type { LoadedSettings, SourcedRules } from './load.js'
import type { Settings } from './schema.js'
import { type EndpointHeader, mergeHeaders, originOf, parseHeaderLines } from './headers.js'

/**
 * The step cap for one user turn when neither a flag nor a settings file sets one. `--help` names it
 * (config/flags.ts, kept off this module so `--version` loads nothing more; a test holds the two equal).
 */
export const DEFAULT_MAX_STEPS = 50

/**
 * Combines flags, environment, settings and defaults into the run's configuration. Precedence:
 * flags > env > settings (local > project > user, already merged) > defaults. Pure.
 */

/** Where a value came from, for `doctor` and error messages. */
export type Origin = 'flag' | 'env' | 'settings' | 'default' | 'none'

export interface ResolvedConfig {
  model: string | undefined
  baseUrl: string | undefined
  apiKey: string | undefined
  /** The environment variable the key was read from (`OPENAI_API_KEY`, or the settings' `apiKeyEnv`). */
  apiKeyEnv: string | undefined
  /** Extra request headers for the endpoint: settings < `AGENT_TUI_CUSTOM_HEADERS` < `--header`, per name. */
  headers: EndpointHeader[]
  mode: Mode
  /** Settings rules (with their file as source) plus `--allowed-tools` / `--disallowed-tools`. */
  rules: SourcedRules
  /**
   * Directories readable and writable like the workspace: `additionalDirectories` of the
   * settings, then `--add-dir`, as written (relative to the workspace, `~` allowed).
   */
  additionalDirectories: Array<{ path: string; source: 'settings' | '--add-dir' }>
  /** The settings files' hooks, each with its file. */
  hooks: CollectedHooks
  /** Flag > settings; undefined = the model profile's default. */
  maxSteps: number | undefined
  headless: boolean
  outputFormat: OutputFormat
  prompt: string | undefined
  /** 0 = wait forever. */
  consentTimeoutSeconds: number
  /** `--tools` > the `tools` setting: exactly the tools the model is offered; undefined = every tool. */
  tools: { names: string[]; source: string } | undefined
  /** The Bash sandbox: `--sandbox` / `--no-sandbox` > the `sandbox` setting > off. */
  sandbox: SandboxConfig
  /** The merged settings, for everything not resolved here (profiles, search, MCP, keybindings…). */
  settings: Settings
  localSettingsPath: string
  origins: { model: Origin; baseUrl: Origin; apiKey: Origin; mode: Origin }
  /** Non-fatal problems to show the user (e.g. an ignored setting). */
  warnings: string[]
  /** Whether Claude Code's places are read (`--no-claude-dirs` > `claudeDirs` > on). */
  claudeDirs: boolean
  /** What turned them off, when they are. */
  claudeDirsOffBy?: string
  /** The settings files this config was resolved from (for `/status`). */
  sources: LoadedSettings['sources']
  /**
   * The model a Claude Code settings file names (not a tier): used when nothing else chooses the model and
   * the endpoint lists it.
   */
  preferredModel: string | undefined
  /** Variables for the commands agent-tui starts (`env` of the settings, Claude Code's included). */
  env: Readonly<Record<string, string>>
  /** CodeSearch's model: `--embedding-model` > `embeddings.model`; undefined = no CodeSearch. */
  embeddingModel: string | undefined
}

/**
 * Resolve the configuration. Throws UsageError for a bad `--base-url` and ConfigError for a bad
 * `OPENAI_BASE_URL` or `AGENT_TUI_MODE`.
 */
export function resolveConfig(
  args: ParsedArgs,
  loaded: LoadedSettings,
  env: Readonly<Record<string, string | undefined>>,
): ResolvedConfig {
  const settings = loaded.merged
  const warnings: string[] = []
  const envValue = (name: string) => (env[name] === undefined || env[name] === '' ? undefined : env[name])

  if (args.baseUrl !== undefined && !isHttpUrl(args.baseUrl)) {
    throw new UsageError(
      `--base-url must be an http(s) URL such as http://127.0.0.1:11434/v1 (got "${args.baseUrl}")`,
    )
  }
  const envBaseUrl = envValue('OPENAI_BASE_URL')
  if (envBaseUrl !== undefined && !isHttpUrl(envBaseUrl)) {
    throw new ConfigError(
      `OPENAI_BASE_URL must be an http(s) URL such as https://api.openai.com/v1 (got "${envBaseUrl}")`,
    )
  }
  const envMode = envValue('AGENT_TUI_MODE')
  if (envMode !== undefined && !MODES.includes(envMode as Mode)) {
    throw new ConfigError(`AGENT_TUI_MODE must be one of ${MODES.join(', ')} (got "${envMode}")`)
  }

  let envHeaders: Array<{ name: string; value: string }> = []
  const headerText = envValue('AGENT_TUI_CUSTOM_HEADERS')
  if (headerText !== undefined) {
    try {
      envHeaders = parseHeaderLines(headerText)
    } catch (error) {
      throw new ConfigError(`AGENT_TUI_CUSTOM_HEADERS: ${(error as Error).message}`)
    }
  }
  const merged = mergeHeaders([
    {
      from: 'settings',
      headers: Object.entries(settings.headers ?? {}).map(([name, value]) => ({ name, value })),
    },
    { from: 'env', headers: envHeaders },
    { from: 'flag', headers: args.headers },
  ])

  const model = pick(args.model, envValue('AGENT_TUI_MODEL'), settings.model)
  const claudeDirs = !args.noClaudeDirs && settings.claudeDirs !== false
  for (const source of loaded.sources) {
    const unreadable = source.claudeCode?.unreadable
    if (unreadable) warnings.push(`${source.label} was not read: ${unreadable}`)
  }
  // The most specific Claude Code file that names a model.
  const preferredModel = claudeDirs
    ? [...loaded.sources].reverse().find((s) => s.claudeCode?.preferredModel)?.claudeCode?.preferredModel
    : undefined
  const baseUrl = pick(args.baseUrl, envBaseUrl, settings.baseUrl)
  const headers = headersWithOrigins(merged, baseUrl.value, settings.baseUrl)
  if (headers.length > 0 && baseUrl.value === undefined)
    warnings.push(
      `${headers.length === 1 ? 'a request header is' : `${headers.length} request headers are`} configured but no baseUrl: a local server found by probing gets none`,
    )
  const namedKeyEnv = settings.apiKey === undefined ? settings.apiKeyEnv : undefined
  const namedKey = namedKeyEnv === undefined ? undefined : envValue(namedKeyEnv)
  const apiKey = pick(args.apiKey, envValue('OPENAI_API_KEY'), settings.apiKey ?? namedKey)
  const keyEnv =
    apiKey.origin === 'env'
      ? 'OPENAI_API_KEY'
      : apiKey.origin === 'settings' && namedKey
        ? namedKeyEnv
        : undefined
  if (namedKeyEnv !== undefined && namedKey === undefined && apiKey.origin === 'none')
    warnings.push(`"apiKeyEnv" names ${namedKeyEnv}, which is not set: no API key is sent`)
  const mode = resolveMode(args, envMode as Mode | undefined, loaded, warnings)

  const rules: SourcedRules = {
    allow: [...loaded.rules.allow, ...flagRules(args.allowedTools, '--allowed-tools')],
    ask: [...loaded.rules.ask],
    deny: [...loaded.rules.deny, ...flagRules(args.disallowedTools, '--disallowed-tools')],
  }

  return {
    model: model.value,
    baseUrl: baseUrl.value?.replace(/\/+$/, ''),
    apiKey: apiKey.value,
    apiKeyEnv: keyEnv,
    headers,
    mode: mode.value,
    rules,
    additionalDirectories: [
      ...(settings.additionalDirectories ?? []).map((path) => ({
        path,
        source: 'settings' as const,
      })),
      ...args.addDirs.map((path) => ({ path, source: '--add-dir' as const })),
    ],
    hooks: collectHooks(loaded.sources),
    maxSteps: args.maxSteps ?? settings.maxSteps,
    headless: args.print,
    outputFormat: args.outputFormat,
    prompt: args.prompt,
    consentTimeoutSeconds: settings.consentTimeoutSeconds ?? 0,
    sandbox: resolveSandbox(args.sandbox, settings.sandbox),
    tools: args.tools
      ? { names: args.tools, source: '--tools' }
      : settings.tools
        ? { names: settings.tools, source: 'the tools setting' }
        : undefined,
    settings,
    localSettingsPath: loaded.localSettingsPath,
    origins: { model: model.origin, baseUrl: baseUrl.origin, apiKey: apiKey.origin, mode: mode.origin },
    warnings,
    claudeDirs,
    ...(claudeDirs
      ? {}
      : { claudeDirsOffBy: args.noClaudeDirs ? '--no-claude-dirs' : '"claudeDirs": false in the settings' }),
    sources: loaded.sources,
    preferredModel,
    env: settings.env ?? {},
    embeddingModel: args.embeddingModel ?? settings.embeddings?.model,
  }
}

/**
 * Which origin each header belongs to (docs/configuration.md#request-headers): `--header` and
 * `AGENT_TUI_CUSTOM_HEADERS` are this run's, so the run's base URL (flag > env > settings); a settings
 * file's `headers` go with the settings' own `baseUrl` when they name one (a `--base-url` elsewhere for
 * one run does not take a gateway's key along), else with the run's.
 */
function headersWithOrigins(
  headers: EndpointHeader[],
  runBaseUrl: string | undefined,
  settingsBaseUrl: string | undefined,
): EndpointHeader[] {
  const run = originOf(runBaseUrl)
  const ofSettings = settingsBaseUrl === undefined ? run : originOf(settingsBaseUrl)
  return headers.map((h) => {
    const origin = h.from === 'settings' ? ofSettings : run
    return origin === undefined ? h : { ...h, origin }
  })
}

function pick(
  flag: string | undefined,
  env: string | undefined,
  setting: string | undefined,
): { value: string | undefined; origin: Origin } {
  if (flag !== undefined) return { value: flag, origin: 'flag' }
  if (env !== undefined) return { value: env, origin: 'env' }
  if (setting !== undefined) return { value: setting, origin: 'settings' }
  return { value: undefined, origin: 'none' }
}

/**
 * Flag > AGENT_TUI_MODE > (with -p: ci) > settings > safe. Headless ignores the settings' mode:
 * interactive modes would only ask questions nobody can answer. A committed project file may not
 * switch permissions off (`dangerous`): that needs a flag, the user file or settings.local.json.
 */
function resolveMode(
  args: ParsedArgs,
  envMode: Mode | undefined,
  loaded: LoadedSettings,
  warnings: string[],
): { value: Mode; origin: Origin } {
  if (args.mode !== undefined) return { value: args.mode, origin: 'flag' }
  if (envMode !== undefined) return { value: envMode, origin: 'env' }
  if (args.print) return { value: 'ci', origin: 'default' }
  for (const source of [...loaded.sources].reverse()) {
    const mode = source.settings.mode
    if (mode === undefined) continue
    // Claude Code's `.claude/settings.local.json` is the repository's too: agent-tui never wrote it.
    if (
      mode === 'dangerous' &&
      (source.scope === 'project' || (source.scope === 'local' && source.claudeCode))
    ) {
      warnings.push(
        `ignored "mode": "dangerous" in ${source.label}: a repository's file cannot switch permissions off ` +
          '(use --yolo, or put it in .agent-tui/settings.local.json)',
      )
      continue
    }
    return { value: mode, origin: 'settings' }
  }
  return { value: 'safe', origin: 'default' }
}

function flagRules(list: readonly string[], flag: string): Rule[] {
  return list.map((text) => {
    try {
      return parseRule(text, flag)
    } catch (err) {
      throw new UsageError(`${flag}: ${(err as Error).message}`)
    }
  })
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value)
    return url.protocol === 'http:' || url.protocol === 'https:'
  } catch {
    return false
  }
}
