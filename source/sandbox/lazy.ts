import type { BashSandbox, BashSandboxOptions, SandboxStatus } from './bash-sandbox.js'

/**
 * The session's Bash sandbox, loaded on first use: nothing of it is on the way to the first frame, and
 * its one-time check (a trial sandboxed command) runs when the session asks for it.
 */
export function createLazyBashSandbox(opts: BashSandboxOptions): BashSandbox {
  let loaded: Promise<BashSandbox> | undefined
  let settled: SandboxStatus | undefined
  return {
    network: opts.network,
    async status() {
      loaded ??= import('./bash-sandbox.js').then((m) => m.createBashSandbox(opts))
      settled = await (await loaded).status()
      return settled
    },
    current: () => settled,
  }
}
