import type { AppPaths } from '../../config/app-paths.js'
import type { ResolvedConfig } from '../../config/resolve-config.js'
import type { BashSandbox } from '../../sandbox/bash-sandbox.js'
import { createLazyBashSandbox } from '../../sandbox/lazy.js'
import type { Store } from '../../store/create-store.js'

/**
 * The Bash sandbox the configuration asks for, reporting to the store: the status bar's badge, and one
 * notice when it cannot run (every command then asks, unsandboxed).
 */
export function createSandbox(
  store: Store,
  projectRoots: string[],
  outputs: string,
  config: ResolvedConfig,
  paths: AppPaths,
): BashSandbox {
  const { network } = config.sandbox
  store.dispatch({ type: 'sandbox/changed', sandbox: { status: 'checking', network } })
  return createLazyBashSandbox({
    network,
    projectRoots,
    scratchRoots: [outputs],
    // All of agent-tui's own: settings, every session's log and outputs, the trust store, sign-ins,
    // checkpoints, debug logs. The session's outputs dir inside stays writable.
    ownSecrets: [paths.configDir, paths.stateDir],
    onStatus: (status) => {
      store.dispatch({ type: 'sandbox/changed', sandbox: { status: status.kind, network } })
      if (status.kind === 'unavailable') {
        store.dispatch({
          type: 'notice/added',
          id: `sandbox-${Date.now()}`,
          level: 'warn',
          text: status.notice,
        })
      }
    },
  })
}
