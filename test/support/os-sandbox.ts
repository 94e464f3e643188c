import { readdirSync, readFileSync } from 'node:fs'
import { locateSandboxTool } from '../../source/sandbox/locate.ts'

/**
 * The OS sandbox program of this machine (bubblewrap on Linux, sandbox-exec on macOS), found the way
 * agent-tui finds it; undefined when there is none. Tests of the real sandbox run only where it exists —
 * a developer machine without bubblewrap still runs everything else, the "not installed" path included
 * (simulated by pointing AGENT_TUI_BWRAP at a path that does not exist).
 */
const tool = locateSandboxTool(process.platform, {})
export const osSandbox = tool.kind === 'missing' ? undefined : tool

/**
 * `.ci/run` sets this: there a missing bubblewrap fails the run instead of leaving the real-sandbox tests
 * out, so CI always tests the real thing.
 */
export const sandboxRequired = process.env.AGENT_TUI_REQUIRE_SANDBOX === '1'

/** Host pids whose command line is exactly `words` (a sandbox's own PID namespace hides them from `$!`). */
export function hostPids(...words: string[]): number[] {
  const wanted = words.join('\0')
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0$/, '') === wanted
      } catch {
        return false
      }
    })
    .map(Number)
}
