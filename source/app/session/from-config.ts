import { join } from 'node:path'
import type { ContextSettings } from '../../agent/context/options.js'
import { buildPromptParts, type PromptContext, type PromptParts } from '../../agent/prompt/system-prompt.js'
import { createTrustController, type TrustController } from '../../agent/runtime/trust-controller.js'
import type { SourcedRules } from '../../config/load.js'
import type { ProjectTrustSetup } from '../../config/project-trust.js'
import { createTaskDirectory, type TaskDirectory } from '../../agent/subagents/task-directory.js'
import { describeSettings } from '../../agent/runtime/settings.js'
import { type Checkpoints, createLazyCheckpoints } from '../../checkpoints/lazy.js'
import { createSummarizer } from '../../agent/runtime/web-summarizer.js'
import { isReadOnlyCommand } from '../../permissions/classifier.js'
import type { ChatProvider } from '../../provider/types.js'
import type { Dispatch } from '../../store/create-store.js'
import { createCatalog } from '../../tools/catalog.js'
import type { AnyTool } from '../../tools/types.js'
import type { HostPrograms } from '../../util/host-programs.js'
import { saveAlwaysRule } from '../../config/ignore-local-settings.js'
import { recordLocalSettings } from '../../config/local-settings-ledger.js'
import type { AppPaths } from '../../config/app-paths.js'
import type { ResolvedConfig } from '../../config/resolve-config.js'
import { headersFor } from '../../config/headers.js'
import { createLazyProvider, type LazyProvider } from '../../provider/lazy-provider.js'
import { type ApplyPatchOffer, type ModelProfile, resolveProfile } from '../../provider/model-profiles.js'
import { createPidRegistry, type PidRegistry } from '../../tasks/pid-registry.js'
import type { Store } from '../../store/create-store.js'
import type { Mode } from '../../store/domain.js'
import type { InstructionReader } from '../../tools/instruction-file.js'
import type { ProcessGroups } from '../../tasks/process-groups.js'
import { createTaskManager, type TaskManager } from '../../tasks/task-manager.js'

/** Pieces of a session that depend on its configuration alone (create-session.ts assembles them). */

/**
 * The model profile of each model id, resolved once per id (it is asked on every tool call): the built-in
 * table, the settings' `models` overrides, the context length the endpoint reported for its model, and
 * the endpoint's kind (a hosted API reads its own tool calls; a local server may leave them as text).
 * The full-screen session lists the endpoint's models after its first frame, when the profile has been
 * asked for already: a length that arrives later resolves the profile again.
 */
export function profileResolver(
  config: ResolvedConfig,
  endpoint: { model: string; contextLength?: number; contextSource?: string; baseUrl?: string },
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
      ...(contextLength && endpoint.contextSource ? { endpointContextSource: endpoint.contextSource } : {}),
      ...(endpoint.baseUrl ? { baseUrl: endpoint.baseUrl } : {}),
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
  // Only those configured for this endpoint's origin: not a probed server's, not one /login chose.
  const headers = headersFor(config.headers, endpoint.baseUrl)
  return createLazyProvider(async () =>
    (await import('../../provider/client.js')).createOpenAIProvider({
      baseUrl: endpoint.baseUrl,
      ...(endpoint.apiKey ? { apiKey: endpoint.apiKey } : {}),
      ...(headers ? { headers } : {}),
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
      orphan.refused !== undefined
        ? `left an entry of the background job registry alone (${orphan.command}): ${orphan.refused}; only process groups agent-tui started are signalled`
        : orphan.killed
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

/** The environment block and the project's instruction files every prompt of the session shares. */
export function sessionPromptParts(
  config: ResolvedConfig,
  at: {
    workspace: string
    model: string
    createdAt: number
    masking: boolean
    branch?: string
    additionalDirs: string[]
    sandbox?: { network: boolean }
    read: InstructionReader
    report(text: string): void
    changedUnasked?(path: string): number | undefined
    claude?: PromptContext['claude']
    seen?: PromptContext['seen']
    loaded?: PromptContext['loaded']
    variant?: 'full' | 'compact'
  },
): Promise<PromptParts> {
  return buildPromptParts({
    workspace: at.workspace,
    platform: `${process.platform} ${process.arch}`,
    shell: 'bash',
    model: at.model,
    date: new Date(at.createdAt).toISOString().slice(0, 10),
    mode: config.mode,
    masking: at.masking,
    ...(at.branch ? { gitBranch: at.branch } : {}),
    additionalDirs: at.additionalDirs,
    ...(at.sandbox ? { sandbox: at.sandbox } : {}),
    read: at.read,
    report: at.report,
    ...(at.changedUnasked ? { changedUnasked: at.changedUnasked } : {}),
    ...(at.claude ? { claude: at.claude } : {}),
    ...(at.seen ? { seen: at.seen } : {}),
    ...(at.loaded ? { loaded: at.loaded } : {}),
    ...(at.variant ? { variant: at.variant } : {}),
  })
}

/**
 * The trust prompt's controller, in an interactive session with project trust: an answer replaces the
 * rules of each holder and the mode follows.
 */
export function sessionTrust(
  setup: ProjectTrustSetup | undefined,
  at: {
    interactive: boolean
    store: Store
    home: string
    rulesHolders: ReadonlyArray<{ setRules(rules: SourcedRules): void }>
    setMode(mode: Mode): void
  },
): TrustController | undefined {
  if (!setup || !at.interactive) return undefined
  let counter = 0
  return createTrustController({
    trust: setup.trust,
    store: at.store,
    setRules: (rules) => {
      for (const holder of at.rulesHolders) holder.setRules(rules)
    },
    configFor: (trusted) => setup.configFor(trusted),
    setMode: at.setMode,
    home: at.home,
    newId: (prefix) => `${prefix}-trust-${Date.now().toString(36)}-${++counter}`,
  })
}

/**
 * The session's background jobs: shell jobs and subagents, their logs in a per-run folder of the outputs
 * dir (task ids restart at b1 in every run; the folder keeps a resumed session's old logs intact).
 * Sandboxed commands can write below the outputs dir, so no link there is followed (util/safe-open.ts).
 */
export function sessionTasks(
  outputs: string,
  createdAt: number,
  processes: ProcessGroups,
  store: Store,
  /** The shell jobs run in and lsof (listening ports off Linux), found outside the workspace. */
  programs: Pick<HostPrograms, 'shell' | 'find'>,
): { tasks: TaskManager; directory: TaskDirectory } {
  const runOutputs = join(outputs, `run-${createdAt}`)
  const tasks = createTaskManager({
    outputsDir: runOutputs,
    privateRoot: outputs,
    processes,
    shell: () => programs.shell(),
    lsof: () => programs.find('lsof'),
    // Through the directory, which adds the subagent a job belongs to.
    onUpdate: (task) => store.dispatch({ type: 'task/updated', task: directory.decorate(task) }),
  })
  const directory = createTaskDirectory({
    processes: tasks,
    logDir: join(runOutputs, 'tasks'),
    privateRoot: outputs,
    onUpdate: (task) => store.dispatch({ type: 'task/updated', task }),
  })
  return { tasks, directory }
}

/** The core tools of a session (skills are added by the caller), with the web tools' services. */
export function sessionCoreTools(opts: {
  config: ResolvedConfig
  paths: AppPaths
  provider: ChatProvider
  profiles: (model: string) => ModelProfile
  dispatch: Dispatch
  createdAt: number
  /** The model the session starts with: its profile says whether apply_patch is offered (for the whole session). */
  model: string
  /** Reads the project's memory file as the system prompt does (SaveMemory). */
  memory: InstructionReader
  /** In place of the profile's choice. */
  applyPatch?: ApplyPatchOffer
}): AnyTool[] {
  let webNotices = 0
  const { summarizerModel, search } = opts.config.settings
  return createCatalog({
    isReadOnlyCommand,
    settings: describeSettings(),
    memory: opts.memory,
    applyPatch: opts.applyPatch ?? opts.profiles(opts.model).applyPatch,
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
