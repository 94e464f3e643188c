import type { ContextSettings } from '../agent/context/options.js'
import { describeSettings } from '../agent/runtime-settings.js'
import { type Checkpoints, createLazyCheckpoints } from '../checkpoints/lazy.js'
import { createSummarizer } from '../agent/web-summarizer.js'
import { isReadOnlyCommand } from '../permissions/classifier.js'
import type { ChatProvider } from '../provider/types.js'
import type { Dispatch } from '../store/create-store.js'
import { createCatalog } from '../tools/catalog.js'
import type { AnyTool } from '../tools/types.js'
import type { HostPrograms } from '../util/host-programs.js'
import { saveAlwaysRule } from '../config/ignore-local-settings.js'
import { recordLocalSettings } from '../config/local-settings-ledger.js'
import type { AppPaths } from '../config/paths.js'
import type { ResolvedConfig } from '../config/resolve.js'
import { createLazyProvider, type LazyProvider } from '../provider/lazy-provider.js'
import { type ModelProfile, resolveProfile } from '../provider/profiles.js'
import { createPidRegistry, type PidRegistry } from '../tasks/pid-registry.js'

/** Pieces of a session that depend on its configuration alone (create-session.ts assembles them). */

/**
 * The model profile of each model id, resolved once per id (it is asked on every tool call): the built-in
 * table, the settings' `models` overrides, and the context length the endpoint reported for its model.
 * The full-screen session lists the endpoint's models after its first frame, when the profile has been
 * asked for already: a length that arrives later resolves the profile again.
 */
export function profileResolver(
  config: ResolvedConfig,
  endpoint: { model: string; contextLength?: number },
): (model: string) => ModelProfile {
  const resolved = new Map<string, { profile: ModelProfile; contextLength: number | undefined }>()
  return (model) => {
    const contextLength = model === endpoint.model ? endpoint.contextLength : undefined
    const known = resolved.get(model)
    if (known !== undefined && known.contextLength === contextLength) return known.profile
    const profile = resolveProfile(model, {
      ...(config.settings.models
        ? { overrides: config.settings.models as Record<string, Partial<ModelProfile>> }
        : {}),
      ...(contextLength ? { endpointContextLength: contextLength } : {}),
    })
    resolved.set(model, { profile, contextLength })
    return profile
  }
}

/** `contextManagement` and `summarizerModel` as the context economy takes them (masking on by default). */
export function contextSettingsOf(config: ResolvedConfig): ContextSettings {
  const management = config.settings.contextManagement
  return {
    masking: management?.masking ?? true,
    ...(management?.observationWindow !== undefined
      ? { observationWindow: management.observationWindow }
      : {}),
    ...(management?.compactAt !== undefined ? { compactAt: management.compactAt } : {}),
    ...(config.settings.summarizerModel ? { summarizerModel: config.settings.summarizerModel } : {}),
  }
}

/** The endpoint's client, loaded on first use (nothing of the SDK is on the way to the first frame). */
export function sessionProvider(
  config: ResolvedConfig,
  endpoint: { baseUrl: string; apiKey?: string },
): LazyProvider {
  const retry = config.settings.retry
  return createLazyProvider(async () =>
    (await import('../provider/client.js')).createOpenAIProvider({
      baseUrl: endpoint.baseUrl,
      ...(endpoint.apiKey ? { apiKey: endpoint.apiKey } : {}),
      ...(retry?.maxAttempts !== undefined ? { maxAttempts: retry.maxAttempts } : {}),
      ...(retry?.maxRetryAfterSeconds !== undefined
        ? { maxRetryAfterMs: retry.maxRetryAfterSeconds * 1000 }
        : {}),
    }),
  )
}

/** The pid registry, after stopping what a crashed run left behind (each one a warning). */
export async function reapOrphans(paths: AppPaths, warnings: string[]): Promise<PidRegistry> {
  const registry = createPidRegistry(paths.pidRegistryFile, {
    onError: (err) => warnings.push(`pid registry: ${err.message}`),
  })
  const reaped = await registry.reapOrphans().catch(() => [])
  for (const orphan of reaped) {
    const what = orphan.kind === 'foreground' ? 'command' : 'background job'
    warnings.push(
      orphan.killed
        ? `stopped an orphaned ${what} from a crashed run: pid ${orphan.pid} (${orphan.command})`
        : `could not stop an orphaned ${what} from a crashed run: process group ${orphan.pid} (${orphan.command}) survived SIGKILL`,
    )
  }
  return registry
}

/**
 * "Always allow" saves the rule to the local settings file. Only a file that was the user's stays so; one
 * the folder brought is not laundered by a save (unrecorded, it counts as the repository's until the
 * folder is trusted, which the next start says).
 */
export async function saveAlwaysRuleOf(
  config: ResolvedConfig,
  paths: AppPaths,
  workspace: string,
  rule: string,
  yours: boolean,
): ReturnType<typeof saveAlwaysRule> {
  const notice = await saveAlwaysRule(config.localSettingsPath, workspace, rule)
  if (yours)
    await recordLocalSettings(paths.localSettingsLedgerFile, config.localSettingsPath).catch(() => undefined)
  return notice
}

/** The core tools of a session (skills are added by the caller), with the web tools' services. */
export function sessionCoreTools(opts: {
  config: ResolvedConfig
  paths: AppPaths
  provider: ChatProvider
  profiles: (model: string) => ModelProfile
  dispatch: Dispatch
  createdAt: number
}): AnyTool[] {
  let webNotices = 0
  const { summarizerModel, search } = opts.config.settings
  return createCatalog({
    isReadOnlyCommand,
    settings: describeSettings(),
    web: {
      ...(summarizerModel
        ? { summarize: createSummarizer(opts.provider, summarizerModel, opts.profiles(summarizerModel)) }
        : {}),
      ...(search ? { search } : {}),
      env: process.env,
      settingsFile: opts.paths.userSettingsFile,
      notify: (level, text) =>
        opts.dispatch({
          type: 'notice/added',
          id: `web-${opts.createdAt.toString(36)}-${++webNotices}`,
          level,
          text,
        }),
    },
  })
}

/** Checkpoints for /rewind, with git found outside the workspace and notices in the transcript. */
export function sessionCheckpoints(opts: {
  workspace: string
  paths: AppPaths
  dispatch: Dispatch
  createdAt: number
  programs: HostPrograms
}): Checkpoints {
  let notices = 0
  return createLazyCheckpoints({
    workspace: opts.workspace,
    stateDir: opts.paths.stateDir,
    git: () => opts.programs.find('git'),
    dispatch: opts.dispatch,
    notice: (level, text) =>
      opts.dispatch({
        type: 'notice/added',
        id: `checkpoint-${opts.createdAt}-${++notices}`,
        level,
        text,
      }),
  })
}
