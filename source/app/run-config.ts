import { resolveEndpoint, type ResolvedEndpoint } from '../config/endpoint.js'
import type { ParsedArgs } from '../config/flags.js'
import { loadSettings } from '../config/load.js'
import { type AppPaths, resolvePaths } from '../config/app-paths.js'
import { credentialsPath, readStoredKey } from '../config/credentials.js'
import { DEFAULT_MAX_STEPS, type ResolvedConfig, resolveConfig } from '../config/resolve-config.js'
import { openProjectTrust, type ProjectTrust, tildePath } from '../config/project-trust.js'
import { headersFor, withHeaders } from '../config/headers.js'
import { unaskedWindowsDir } from '../provenance/windows.js'
import { DEFAULT_BREAKER } from '../agent/turn/circuit-breaker.js'
import type { SessionOptions } from './session/types.js'

/**
 * The configuration of one run in one folder: settings, the folder's trust, the resolved config. Shared by
 * `start()` (the TUI and `-p`) and `agent-tui mcp serve` (a task per call, each with its own folder), so a
 * task is configured exactly as `-p` in that folder would be.
 */
export interface RunConfig {
  paths: AppPaths
  trust: ProjectTrust
  /** The config as the folder's trust is (a trusted folder's own settings apply). */
  configFor(trusted: boolean): ResolvedConfig
  config: ResolvedConfig
}

export async function openRunConfig(
  args: ParsedArgs,
  at: { workspace: string; env: NodeJS.ProcessEnv; home: string },
): Promise<RunConfig> {
  const { workspace, env, home } = at
  const paths = resolvePaths(env, home)
  const loaded = await loadSettings({ cwd: workspace, env, home, claudeDirs: !args.noClaudeDirs })
  // What the repository brings applies only in a trusted folder (docs/permissions.md#project-trust).
  const trust = await openProjectTrust({
    workspace,
    home,
    storeFile: paths.trustStoreFile,
    ledgerFile: paths.localSettingsLedgerFile,
    loaded,
    trustFlag: args.trustProject,
    baseline: { maxSteps: DEFAULT_MAX_STEPS, breaker: DEFAULT_BREAKER },
    windowsDir: unaskedWindowsDir(paths.stateDir),
  })
  // A key typed into the setup form is kept for its base URL only (config/credentials.ts).
  const configFor = (trusted: boolean) =>
    withStoredKey(resolveConfig(args, trust.settings(trusted).loaded, env), paths)
  return { paths, trust, configFor, config: configFor(trust.isTrusted()) }
}

/** The endpoint options a config gives `resolveEndpoint`. */
export function endpointOptionsOf(config: ResolvedConfig) {
  return {
    ...(config.baseUrl ? { baseUrl: config.baseUrl } : {}),
    ...(config.apiKey ? { apiKey: config.apiKey } : {}),
    ...withHeaders(headersFor(config.headers, config.baseUrl)),
    ...(config.model ? { model: config.model } : {}),
    ...(config.preferredModel ? { preferredModel: config.preferredModel } : {}),
  }
}

/** A headless run's endpoint with its model, or the message that says what to set (exit code 2). */
export function headlessEndpoint(
  config: ResolvedConfig,
  endpoint: ResolvedEndpoint,
  settingsFile: string,
): { ok: true; endpoint: SessionOptions['endpoint'] } | { ok: false; message: string } {
  if (endpoint.kind === 'none')
    return { ok: false, message: noEndpointMessage(endpoint.probed, settingsFile) }
  const model = config.model ?? endpoint.model
  if (!model) {
    const why = endpoint.listError ?? `${endpoint.baseUrl}/models lists none`
    return {
      ok: false,
      message: `agent-tui: no model configured, and ${why}.\nPass --model NAME (or set AGENT_TUI_MODEL, or "model" in settings).`,
    }
  }
  return {
    ok: true,
    endpoint: {
      baseUrl: endpoint.baseUrl,
      model,
      ...(endpoint.apiKey ? { apiKey: endpoint.apiKey } : {}),
      ...(endpoint.contextLength ? { contextLength: endpoint.contextLength } : {}),
      ...(endpoint.contextSource ? { contextSource: endpoint.contextSource } : {}),
    },
  }
}

/** Resolves a headless run's endpoint (probing loopback when none is configured), as `-p` does. */
export async function resolveHeadlessEndpoint(
  config: ResolvedConfig,
  paths: AppPaths,
  home: string,
): Promise<ReturnType<typeof headlessEndpoint>> {
  const endpoint = await resolveEndpoint(endpointOptionsOf(config))
  return headlessEndpoint(config, endpoint, tildePath(paths.userSettingsFile, home))
}

/**
 * The key stored by the setup form for the configured base URL, when nothing else gives one (a flag, the
 * environment or a settings file beat it). Sent only to the URL it was stored for.
 */
function withStoredKey(config: ResolvedConfig, paths: AppPaths): ResolvedConfig {
  if (config.apiKey !== undefined || config.baseUrl === undefined) return config
  const stored = readStoredKey(paths, config.baseUrl)
  const warnings = [...config.warnings]
  if (stored.problem) warnings.push(`${stored.problem}; no stored API key is used`)
  if (stored.looseMode !== undefined)
    warnings.push(
      `${credentialsPath(paths)} can be read by others (mode ${stored.looseMode.toString(8)}): chmod 600 it`,
    )
  return { ...config, warnings, ...(stored.key ? { apiKey: stored.key } : {}) }
}

/** `settingsFile`: the user settings file as shown (it follows `$XDG_CONFIG_HOME`). */
export function noEndpointMessage(
  probed: Array<{ name: string; url: string; result: string }>,
  settingsFile: string,
): string {
  const settings = `  "baseUrl" and "model" in ${settingsFile}`
  return [
    'agent-tui: no model endpoint configured and no local server found.',
    'Set one of:',
    '  OPENAI_BASE_URL=https://api.openai.com/v1 OPENAI_API_KEY=sk-…   (environment)',
    '  --base-url URL --model NAME [--api-key KEY]                      (flags)',
    `${settings.padEnd(66)} (settings)`,
    'Local servers probed:',
    ...probed.map((p) => `  ${p.name.padEnd(10)} ${p.url.padEnd(30)} ${p.result}`),
  ].join('\n')
}
