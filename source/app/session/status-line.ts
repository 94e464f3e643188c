import type { Store } from '../../store/create-store.js'
import { estimateCost, type Prices } from '../../ui/panes/status/format.js'
import type { HookProcessOwner } from '../../user-hooks/types.js'
import { runHookCommand } from '../../user-hooks/run-command.js'
import {
  createStatusLineRunner,
  hasVisibleText,
  type StatusLineSettings,
  statusLineInput,
} from '../../user-hooks/status-line.js'

declare const AGENT_TUI_VERSION: string

export interface SessionStatusLineOptions {
  settings: StatusLineSettings
  store: Store
  workspace: string
  cwd(): string
  contextLimit(): number
  prices?: Prices
  transcriptPath?: () => string | undefined
  owner?: HookProcessOwner
  shell?: string
  vet(command: string, cwd: string, env: NodeJS.ProcessEnv, signal: AbortSignal): Promise<string | undefined>
}

/**
 * Starts the status line command for an interactive session (after the first frame): it follows the
 * store, and its line goes back into the store (`status/line`) for the status bar. Returns the stop.
 */
export function startSessionStatusLine(opts: SessionStatusLineOptions): () => Promise<void> {
  const { store } = opts
  const env = { ...process.env, CLAUDE_PROJECT_DIR: opts.workspace, AGENT_TUI_PROJECT_DIR: opts.workspace }
  const runner = createStatusLineRunner({
    settings: opts.settings,
    run: (run) =>
      runHookCommand({
        ...run,
        ...(opts.owner ? { owner: opts.owner } : {}),
        ...(opts.shell ? { shell: opts.shell } : {}),
      }),
    cwd: opts.cwd,
    env,
    onLine: (text) =>
      store.dispatch({
        type: 'status/line',
        text: hasVisibleText(text) ? `${' '.repeat(opts.settings.padding ?? 0)}${text}` : '',
      }),
    onProblem: (text) =>
      store.dispatch({
        type: 'notice/added',
        id: `status-line-${Date.now().toString(36)}`,
        level: 'warn',
        text,
      }),
    vet: (signal) => opts.vet(opts.settings.command, opts.cwd(), env, signal),
  })
  const input = () => {
    const state = store.getState()
    const transcriptPath = opts.transcriptPath?.()
    return statusLineInput(
      state,
      {
        projectDir: opts.workspace,
        currentDir: opts.cwd(),
        ...(transcriptPath ? { transcriptPath } : {}),
        version: typeof AGENT_TUI_VERSION === 'string' ? AGENT_TUI_VERSION : 'dev',
        contextLimit: opts.contextLimit(),
        ...(opts.prices ? { costUsd: estimateCost(state.usage.session, opts.prices) } : {}),
      },
      Date.now(),
    )
  }
  runner.update(input())
  // Each store change is compared (cheaply) with the last run's input: the spinner's ticks and other UI
  // state leave it the same, so they run nothing.
  let last = store.getState()
  const unsubscribe = store.subscribe(() => {
    const now = store.getState()
    if (now.session === last.session && now.usage === last.usage && now.mode === last.mode) return
    last = now
    runner.update(input())
  })
  return async () => {
    unsubscribe()
    await runner.stop()
  }
}
