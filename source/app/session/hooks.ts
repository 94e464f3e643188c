import { dirname } from 'node:path'
import { type CollectedHooks, hooksView } from '../../user-hooks/hook-settings.js'
import { permissionModeName } from '../../user-hooks/protocol.js'
import { createHookService, type HookGuard, type HookService } from '../../user-hooks/hook-service.js'
import type { HookProcessOwner, HooksView } from '../../user-hooks/types.js'
import type { ResolvedConfig } from '../../config/resolve-config.js'
import type { Mode } from '../../store/domain.js'
import type { ProjectTrustSetup } from '../../config/project-trust.js'
import { createClaudeTranscript, transcriptPathFor } from '../../session/claude-transcript.js'
import type { Store } from '../../store/create-store.js'
import { withPluginHooks } from '../../plugins/plugin-basics.js'

const NO_HOOKS: CollectedHooks = { hooks: [], disabledBy: null, warnings: [] }

declare const AGENT_TUI_VERSION: string

export interface SessionHookServiceOptions {
  config: ResolvedConfig
  projectTrust?: ProjectTrustSetup
  interactive: boolean
  workspace: string
  sessionId: string
  /** The enabled plugins' hooks: the user's, in force whatever the folder's trust. */
  pluginHooks?: CollectedHooks
  /** The session log: the Claude Code-shaped transcript hooks get as `transcript_path` lies beside it. */
  logPath: string
  /** The conversation and model the transcript holds; a notice when it cannot be written. */
  store: Store
  mode(): Mode
  cwd(): string
  owner?: HookProcessOwner
  /** bash by absolute path, outside the workspace. */
  shell?: string
  /** Asked before each hook starts (see source/app/session/provenance.ts). */
  guard?: HookGuard
}

/**
 * The session's hook service, or undefined when no settings file configures a hook (then nothing about
 * hooks costs anything). Project hooks follow the folder's trust live: trusting the folder in the prompt
 * puts them in force at once, and distrusting it withdraws them.
 */
export function createSessionHookService(opts: SessionHookServiceOptions): HookService | undefined {
  const setup = opts.projectTrust
  // Every hook any file configures (as if the folder were trusted), and those in force now.
  const plugins = opts.pluginHooks ?? NO_HOOKS
  const all = withPluginHooks(setup ? setup.configFor(true).hooks : opts.config.hooks, plugins)
  if (all.hooks.length === 0) return undefined
  const why = opts.interactive
    ? 'this folder is not trusted (/trust)'
    : 'this folder is not trusted (--trust-project)'
  let view: HooksView = hooksView(all, withPluginHooks(opts.config.hooks, plugins), why)
  // Written only when a hook is about to run, in the shapes Claude Code's hooks read.
  const transcript = createClaudeTranscript({
    path: transcriptPathFor(opts.logPath),
    root: dirname(opts.logPath),
    messages: () => opts.store.getState().messages,
    context: {
      sessionId: opts.sessionId,
      cwd: opts.cwd,
      model: () => opts.store.getState().session.model,
      version: typeof AGENT_TUI_VERSION === 'string' ? AGENT_TUI_VERSION : 'dev',
    },
    onError: (error) =>
      opts.store.dispatch({
        type: 'notice/added',
        id: `hooks-transcript-${opts.sessionId}`,
        level: 'warn',
        text: `hooks get a transcript_path that could not be brought up to date: ${error.message}`,
      }),
  })
  const unsubscribe = setup?.trust.subscribe((status) => {
    view = hooksView(all, withPluginHooks(setup.configFor(status.trusted).hooks, plugins), why)
  })
  const service = createHookService({
    view: () => view,
    projectDir: opts.workspace,
    transcriptPath: () => transcript.sync(),
    common: () => ({
      session_id: opts.sessionId,
      transcript_path: transcript.path,
      cwd: opts.cwd(),
      permission_mode: permissionModeName(opts.mode()),
    }),
    ...(opts.owner ? { owner: opts.owner } : {}),
    ...(opts.shell ? { shell: opts.shell } : {}),
    ...(opts.guard ? { guard: opts.guard } : {}),
  })
  return {
    ...service,
    async dispose() {
      unsubscribe?.()
      await service.dispose()
    },
  }
}
