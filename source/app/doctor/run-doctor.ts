import { realpathSync } from 'node:fs'
import { homedir } from 'node:os'
import { dirname } from 'node:path'
import { DEFAULT_BREAKER } from '../../agent/turn/circuit-breaker.js'
import { resolvePaths } from '../../config/app-paths.js'
import { credentialsPath, readStoredKey } from '../../config/credentials.js'
import { resolveEndpoint } from '../../config/endpoint.js'
import { ConfigError, UsageError } from '../../config/errors.js'
import { headersFor, withHeaders } from '../../config/headers.js'
import type { ParsedArgs } from '../../config/flags.js'
import { loadSettings } from '../../config/load.js'
import { openProjectTrust, tildePath } from '../../config/project-trust.js'
import { DEFAULT_MAX_STEPS, resolveConfig } from '../../config/resolve-config.js'
import type { ModelProfile } from '../../provider/model-profiles.js'
import { unaskedWindowsDir } from '../../provenance/windows.js'
import { cleanedWriter } from '../../util/display-text.js'
import { configChecks, trustCheck } from './config-checks.js'
import { endpointChecks } from './endpoint-checks.js'
import { nodeCheck, ripgrepCheck, sandboxChecks } from './host-checks.js'
import { type Check, doctorExitCode, formatJson, formatText } from './report.js'

/**
 * `agent-tui doctor [--json]` (docs/troubleshooting.md#doctor): every check, printed, and exit 1 when an
 * essential one failed (2 for a usage or settings error, as everywhere). Reads configuration as a session
 * would (flags, environment, settings, this folder's trust) and changes nothing.
 */
export async function runDoctor(args: ParsedArgs, json: boolean): Promise<number> {
  const out = cleanedWriter(process.stdout)
  const checks = await collectChecks(args).catch((error: unknown) => {
    if (error instanceof ConfigError || error instanceof UsageError)
      return [
        {
          id: 'settings',
          title: 'Settings',
          status: 'fail',
          detail: error.message,
          fix: 'fix the file named above',
          essential: true,
        } satisfies Check,
      ]
    throw error
  })
  const width = process.stdout.isTTY ? process.stdout.columns : undefined
  out.write(json ? formatJson(checks) : formatText(checks, width))
  return doctorExitCode(checks)
}

export interface DoctorOptions {
  env?: NodeJS.ProcessEnv
  workspace?: string
  /** Per endpoint request (default 60 s). */
  timeoutMs?: number
  /** The endpoint a session runs with (`/doctor`), instead of resolving one from the configuration. */
  endpoint?: { baseUrl: string; apiKey?: string; model: string }
}

/** `/doctor` in a session: the same checks, for the session's endpoint, as lines. */
export async function doctorLines(
  args: ParsedArgs,
  opts: DoctorOptions & { width?: number },
): Promise<string[]> {
  const checks = await collectChecks(args, opts)
  return formatText(checks, opts.width).trimEnd().split('\n')
}

export async function collectChecks(args: ParsedArgs, opts: DoctorOptions = {}): Promise<Check[]> {
  const env = opts.env ?? process.env
  const workspace = opts.workspace ?? process.cwd()
  const home = env.HOME || homedir()
  const paths = resolvePaths(env, home)
  const checks: Check[] = [nodeCheck({ packageRoot: packageRoot() })]
  const loaded = await loadSettings({ cwd: workspace, env, home })
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
  await trust.settled()
  const trusted = trust.isTrusted()
  const applied = trust.settings(trusted).loaded
  const config = resolveConfig(args, applied, env)
  // The key the setup form stored for this URL, as a session would use it.
  let apiKey = opts.endpoint ? opts.endpoint.apiKey : config.apiKey
  let keySource = opts.endpoint ? undefined : config.apiKeyEnv
  if (apiKey === undefined && config.baseUrl !== undefined && !opts.endpoint) {
    const stored = readStoredKey(paths, config.baseUrl)
    if (stored.key) {
      apiKey = stored.key
      keySource = tildePath(credentialsPath(paths), home)
    }
  }
  const endpoint = opts.endpoint
    ? ({ kind: 'configured', baseUrl: opts.endpoint.baseUrl, models: [] } as const)
    : await resolveEndpoint({
        ...(config.baseUrl ? { baseUrl: config.baseUrl } : {}),
        ...(apiKey ? { apiKey } : {}),
        ...withHeaders(headersFor(config.headers, config.baseUrl)),
        ...(config.model ? { model: config.model } : {}),
        listAttempts: 1,
      })
  checks.push(
    ...(await endpointChecks({
      baseUrl: endpoint.kind === 'none' ? undefined : endpoint.baseUrl,
      apiKey,
      // As a session sends them: to the origin they were configured for only.
      ...(endpoint.kind === 'none' ? {} : withHeaders(headersFor(config.headers, endpoint.baseUrl))),
      model: opts.endpoint?.model ?? config.model,
      origins: {
        baseUrl: opts.endpoint ? 'session' : endpoint.kind === 'probed' ? 'probed' : config.origins.baseUrl,
        apiKey: opts.endpoint
          ? 'session'
          : config.apiKey === undefined && apiKey !== undefined
            ? 'stored'
            : config.origins.apiKey,
        model: opts.endpoint ? 'session' : config.model ? config.origins.model : 'none',
      },
      ...(keySource ? { keySource } : {}),
      ...(endpoint.kind === 'none' ? { probed: endpoint.probed } : {}),
      ...(config.settings.models
        ? { overrides: config.settings.models as Record<string, Partial<ModelProfile>> }
        : {}),
      ...(opts.timeoutMs ? { timeoutMs: opts.timeoutMs } : {}),
    })),
  )
  checks.push(await ripgrepCheck())
  const real = realpathSync(workspace)
  checks.push(
    ...(await sandboxChecks({
      enabled: config.sandbox.mode !== 'off',
      network: config.sandbox.network,
      projectRoots: [real],
      scratchRoots: [],
      ownSecrets: [paths.configDir, paths.stateDir],
      env,
    })),
  )
  const contributions = await trust.contributions()
  checks.push(trustCheck(trust, contributions.length))
  checks.push(...(await configChecks({ paths, workspace: real, home, loaded: applied, config, trusted })))
  return checks
}

/** The installed package's root (dist/ or source/ is one level down), for the pinned runtime. */
function packageRoot(): string | undefined {
  const script = process.argv[1]
  return script ? dirname(dirname(realpathSync(script))) : undefined
}
