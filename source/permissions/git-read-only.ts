import { type Boundary, readObjection } from './protected-paths.js'

/**
 * What keeps a "read-only" git command read-only under a repository's own configuration. Pure.
 *
 * A repository's `.git/config` (and what it includes, its worktree config, a submodule's config) can
 * name programs that reading commands run: `core.fsmonitor` on `status`, `diff.external` on `diff`, a
 * hook in `.git/hooks` when `status` refreshes the index, `gpg.program` on `log` of signed commits…
 * Settings that can be turned off are turned off for every command the classifier lets run as read-only,
 * in its environment: command-line config (GIT_CONFIG_COUNT) beats every config file and is passed down
 * to the git processes git starts itself. The others — names the repository chooses (a diff driver's
 * `textconv`, a filter's `clean`), or an empty value git would still run (`diff.external`) — cannot:
 * git-config-scan.ts looks for them where the call runs before the policy judges the command, and
 * `gitConfigObjection` makes such a git call one that executes (it asks). The user's own config is
 * theirs: its programs run as they chose.
 */

/** Fixed for read-only git commands (`-c key=value` in the environment). */
export const READ_ONLY_GIT_CONFIG: ReadonlyArray<readonly [string, string]> = [
  // Runs on status, diff, ls-files, grep, blame, describe --dirty.
  ['core.fsmonitor', 'false'],
  // post-index-change runs when status or diff rewrites the index; no hook belongs to a read.
  ['core.hooksPath', '/dev/null'],
  // A pager runs only with a terminal, which Bash never has; empty is "no pager" all the same.
  ['core.pager', ''],
  // Looking into a submodule's work tree runs git there, under the submodule's own config.
  ['diff.ignoreSubmodules', 'dirty'],
  ['diff.submodule', 'short'],
  ['status.submoduleSummary', 'false'],
  ['submodule.recurse', 'false'],
  // Nothing read-only talks to a remote: a partial clone's lazy fetch would run transports and helpers.
  ['protocol.allow', 'never'],
  ...['file', 'git', 'ssh', 'http', 'https', 'ext'].map((p) => [`protocol.${p}.allow`, 'never'] as const),
]

/** The environment variables set with them. */
const READ_ONLY_GIT_VARIABLES: Readonly<Record<string, string>> = {
  // No index write, so no post-index-change hook and no lock file in the user's repository.
  GIT_OPTIONAL_LOCKS: '0',
  // git 2.45+: a partial clone never fetches a missing object during a read.
  GIT_NO_LAZY_FETCH: '1',
  GIT_PROTOCOL_FROM_USER: '0',
  GIT_TERMINAL_PROMPT: '0',
}

/** `env` with `entries` added as command-line config (after any GIT_CONFIG_COUNT entries already set). */
export function withGitConfig(
  env: NodeJS.ProcessEnv,
  entries: ReadonlyArray<readonly [string, string]>,
): NodeJS.ProcessEnv {
  const count = Number(env.GIT_CONFIG_COUNT ?? '0')
  const n = Number.isInteger(count) && count >= 0 ? count : 0
  const out: NodeJS.ProcessEnv = { ...env, GIT_CONFIG_COUNT: String(n + entries.length) }
  entries.forEach(([key, value], i) => {
    out[`GIT_CONFIG_KEY_${n + i}`] = key
    out[`GIT_CONFIG_VALUE_${n + i}`] = value
  })
  return out
}

/** The environment of a command the classifier judged read-only: the settings above fixed. */
export function readOnlyGitEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { ...withGitConfig(env, READ_ONLY_GIT_CONFIG), ...READ_ONLY_GIT_VARIABLES }
}

/** What the configuration git would read in one directory says, as git-config-scan.ts found it. */
export type GitConfigFacts =
  | {
      ok: true
      /** Settings of the repository (not the user's own config) that make a read run a program. */
      runs: Array<{ key: string; origin: string }>
      /** The work tree git would read there (`core.worktree` can point it anywhere), when in a repository. */
      workTree?: string
      /** Files the repository's settings make a read open and quote from (real paths). */
      reads?: Array<{ key: string; path: string }>
    }
  | { ok: false; reason: string }

/**
 * Keys (lower-case) of the repository's config that make a read run a program and that cannot be fixed
 * to "off": their names are the repository's choice (a diff driver's `textconv`), or an empty value is
 * run as a command all the same (`diff.external`, the signing programs `log --show-signature` runs).
 */
const NAMED_PROGRAMS = [
  /^diff\.external$/,
  /^gpg\.program$/,
  /^gpg\.[^.]+\.program$/,
  /^diff\..+\.(textconv|command)$/,
  /^filter\..+\.(clean|smudge|process)$/,
  // A partial clone fetches what a read needs, through transports and helpers the config names.
  /^remote\..+\.promisor$/,
  /^extensions\.partialclone$/,
]

/**
 * Keys whose value is a file a read opens and quotes from: `blame` prints the first line of an
 * ignore-revs file that is not a commit id (`.env`'s first line…). The list only grows (an empty value
 * resets nothing in git 2.39), so it cannot be fixed: the file is judged by the read boundary instead.
 */
const QUOTED_FILES = /^blame\.ignorerevsfile$/

/**
 * Keys naming a file git reads as more config (`include.path`, `includeIf.<condition>.path`): `git config
 * --get`/`--list` print its values, so a repository's `.git/config` including `~/.pypirc` would put a
 * password in front of the model through a read-only command. The file is judged by the read boundary.
 */
const INCLUDES = /^include\.path$|^includeif\..+\.path$/

/** A per-submodule `ignore` that makes git look into the submodule's work tree despite `dirty`. */
const SUBMODULE_IGNORE = /^submodule\..+\.ignore$/

/** Scopes that are the user's, not the repository's (`git config --show-scope`). */
const USER_SCOPES = new Set(['system', 'global', 'command'])

/** The entries of a `git config --list --show-scope --show-origin -z` listing set by the repository. */
function repositoryEntries(listing: string): Array<{ key: string; value: string; origin: string }> {
  const out: Array<{ key: string; value: string; origin: string }> = []
  const fields = listing.split('\0')
  // Each entry is scope, origin, then `key\nvalue` (or `key` alone for a value-less boolean).
  for (let i = 0; i + 2 < fields.length; i += 3) {
    const scope = fields[i]!
    const origin = fields[i + 1]!.replace(/^file:/, '')
    const entry = fields[i + 2]!
    const newline = entry.indexOf('\n')
    const key = (newline === -1 ? entry : entry.slice(0, newline)).toLowerCase()
    const value = newline === -1 ? 'true' : entry.slice(newline + 1)
    if (!USER_SCOPES.has(scope)) out.push({ key, value, origin })
  }
  return out
}

/** Files the repository's settings make a read quote from, as written (`~/x`, relative or absolute). */
export function quotedFiles(listing: string): Array<{ key: string; value: string }> {
  return repositoryEntries(listing)
    .filter((e) => QUOTED_FILES.test(e.key) && e.value.trim() !== '')
    .map(({ key, value }) => ({ key, value }))
}

/** The includes of the repository's config: each target as written, with the file that names it. */
export function includedFiles(listing: string): Array<{ key: string; value: string; origin: string }> {
  return repositoryEntries(listing).filter((e) => INCLUDES.test(e.key) && e.value.trim() !== '')
}

/** The files a listing's repository entries were read from, as git names them (relative to the top or absolute). */
export function repositoryOrigins(listing: string): string[] {
  return [...new Set(repositoryEntries(listing).map((e) => e.origin))]
}

/**
 * The settings of a `git config --list --show-scope --show-origin -z` listing that a read-only git call
 * cannot neutralise: named drivers and filters, lazy fetching, a submodule git would look into. Pure.
 */
export function programSettings(listing: string, gitmodules = ''): Array<{ key: string; origin: string }> {
  const found = repositoryEntries(listing)
    .filter((e) => risky(e.key, e.value))
    .map(({ key, origin }) => ({ key, origin }))
  for (const entry of gitmodules.split('\0')) {
    const newline = entry.indexOf('\n')
    const key = (newline === -1 ? entry : entry.slice(0, newline)).toLowerCase()
    if (SUBMODULE_IGNORE.test(key) && risky(key, newline === -1 ? '' : entry.slice(newline + 1)))
      found.push({ key, origin: '.gitmodules' })
  }
  return found
}

function risky(key: string, value: string): boolean {
  if (SUBMODULE_IGNORE.test(key)) return !['dirty', 'all'].includes(value.trim().toLowerCase())
  if (!NAMED_PROGRAMS.some((re) => re.test(key))) return false
  // An empty driver or filter command is none; a promisor remote set to false is not one.
  if (key.endsWith('.promisor')) return !['false', 'no', 'off', '0'].includes(value.trim().toLowerCase())
  return value.trim() !== ''
}

/**
 * Why a git call classed read-only executes after all, given the directories it runs in (undefined:
 * only known when it runs) and what the scan found there; undefined when it only reads.
 */
export function gitConfigObjection(
  dirs: readonly string[] | undefined,
  facts: Readonly<Record<string, GitConfigFacts>> | undefined,
  boundary: Boundary,
  shown: (path: string) => string,
): string | undefined {
  if (dirs === undefined)
    return 'it runs in a folder only known when it runs, so the git config there cannot be checked'
  for (const dir of dirs) {
    const fact = facts?.[dir]
    if (!fact) return `the git config in ${shown(dir)} was not checked`
    if (!fact.ok) return `the git config in ${shown(dir)} cannot be checked (${fact.reason})`
    const run = fact.runs[0]
    if (run) {
      const more = fact.runs.length > 1 ? ` (and ${fact.runs.length - 1} more)` : ''
      return run.origin === '.gitmodules'
        ? `the repository's .gitmodules sets ${run.key}, so git would look into that submodule under its own config${more}`
        : `the repository's git config (${shown(run.origin)}) sets ${run.key}, a program git runs${more}`
    }
    for (const read of fact.reads ?? []) {
      const outside = readObjection(read.path, read.path, boundary)
      if (outside)
        return `the repository's git config sets ${read.key} to ${shown(read.path)}, which git would quote from (${outside.reason})`
    }
    if (fact.workTree !== undefined) {
      const outside = readObjection(fact.workTree, fact.workTree, boundary)
      if (outside)
        return `the repository's git config points its work tree at ${shown(fact.workTree)} (${outside.reason})`
    }
  }
  return undefined
}
