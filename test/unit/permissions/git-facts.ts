import { commandLookups } from '../../../source/permissions/command-analysis.js'
import type { GitConfigFacts } from '../../../source/permissions/git-read-only.js'

/**
 * What the gate's git-config scan reports for a command whose read-only git calls all run in clean
 * repositories, for policy tests that do not look at repositories (git-config-scan.test.ts does).
 */
export function cleanGitConfig(command: string, cwd: string, home: string): Record<string, GitConfigFacts> {
  const clean: Record<string, GitConfigFacts> = {}
  for (const dir of commandLookups(command, cwd, home).gitDirs) clean[dir] = { ok: true, runs: [] }
  return clean
}
