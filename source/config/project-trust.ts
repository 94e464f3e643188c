import { realpath } from 'node:fs/promises'
import { dirname, relative } from 'node:path'
import type { TrustChoice } from '../store/domain.js'
import { isTrackedByGit } from './git-tracked.js'
import { isRecordedLocalSettings } from './local-settings-ledger.js'
import { type LoadedSettings, type SettingsSource, withoutClaudeCode } from './load.js'
import type { ResolvedConfig } from './resolve-config.js'
import { listWindows } from '../provenance/windows.js'
import { type Contribution, type ContributionKind, discoverContributions } from './project-contributions.js'
import { folderIdentity, judgeConfig, ownConfig, recordFor } from './trust-fingerprint.js'
import {
  type FilteredSettings,
  filterProjectSettings,
  type SettingsBaseline,
} from './project-settings-filter.js'
import {
  isBroadFolder,
  matchTrust,
  readTrustStore,
  type TrustEntry,
  updateTrustStore,
} from './trust-store.js'

/**
 * Project trust (docs/permissions.md#project-trust): what a repository brings — its settings file's rules and settings, `.mcp.json`
 * servers, hooks, agents, commands, skills — only takes effect once the user trusts its folder. This is
 * the one place the rest of the app asks:
 *
 * - `isTrusted()` / `status()`: the answer now (it changes live when the user answers the prompt);
 * - `settings(trusted)`: the settings files with what an untrusted repository may not do taken out;
 * - `contributions()`: everything the folder brings that trust would enable (for the prompt);
 * - `mayLoad(kind)`: a loader's question before it loads a project-brought MCP server, hook, agent…;
 * - `subscribe(fn)`: called when the answer changes, so a loader can load (or drop) things live.
 */

export type TrustSource = 'flag' | 'store' | 'session' | 'changed' | 'none'

export interface TrustStatus {
  trusted: boolean
  /**
   * `--trust-project`, a remembered answer, an answer given in this session but not saved, a remembered
   * "trust" that no longer covers the folder's configuration (`changed`), or none yet.
   */
  source: TrustSource
  /** The remembered answer that applies (it may be for a parent folder). */
  entry?: TrustEntry
  /** With `changed`: what is not as it was trusted (`sub/.mcp.json appeared after …`). */
  changes?: string[]
}

export interface ProjectTrust {
  /** Real path of the workspace: what trust is remembered for. */
  readonly folder: string
  readonly storeFile: string
  status(): TrustStatus
  isTrusted(): boolean
  /** May a project-brought item of this kind be loaded now? */
  mayLoad(kind: ContributionKind): boolean
  /** The settings as they apply when the folder is (or is not) trusted; defaults to now. */
  settings(trusted?: boolean): FilteredSettings
  /** What trusting the folder would enable (whether or not it is trusted now). */
  contributions(): Promise<Contribution[]>
  /** The folder "trust the parent" would trust, or null when that would be `/` or the home folder. */
  parentToOffer(): string | null
  /** The folder is `/`, home or an ancestor of home: trusting it covers only itself. */
  isBroad(): boolean
  /**
   * Records the user's answer in the store (atomically) and applies it. When the store cannot be written
   * the answer still holds for this session, and `warning` says so.
   */
  decide(choice: Exclude<TrustChoice, 'later'>): Promise<{ status: TrustStatus; warning?: string }>
  subscribe(listener: (status: TrustStatus) => void): () => void
  /**
   * Resolves once it is known whether git tracks `.agent-tui/settings.local.json` (which makes it the
   * repository's, not the user's); true when that changed what `settings()` returns.
   */
  settled(): Promise<boolean>
  /**
   * Whether `.agent-tui/settings.local.json` is the user's (or there was none at start): agent-tui wrote
   * it as it is and git does not track it. "Always allow" records what it writes only then, so saving a
   * rule into a file the repository brought never makes the rest of that file the user's.
   */
  localIsYours(): boolean
  /** Problems with the store or the git check, for a notice. */
  warnings(): string[]
}

/** Project trust and the configuration it yields either way (a session switches live on an answer). */
export interface ProjectTrustSetup {
  trust: ProjectTrust
  configFor(trusted: boolean): ResolvedConfig
}

export interface ProjectTrustOptions {
  workspace: string
  home: string
  storeFile: string
  /** Which settings.local.json files agent-tui wrote (see local-settings-ledger.ts). */
  ledgerFile: string
  loaded: LoadedSettings
  /** `--trust-project`. */
  trustFlag: boolean
  baseline: SettingsBaseline
  now?: () => number
  /** Whether git tracks a file (injected by tests). */
  isTracked?: (cwd: string, relPath: string) => Promise<boolean | 'unknown'>
  /** Where sessions record when commands or edits ran unasked (see source/provenance/windows.ts). */
  windowsDir?: string
}

/**
 * Opens the trust state of `workspace`: resolves its real path and reads the store. The git check on
 * `.agent-tui/settings.local.json` runs in the background when that file only holds rules (the usual
 * "always allow" file: nothing before the first frame depends on it); when it sets more, it is awaited.
 */
export async function openProjectTrust(opts: ProjectTrustOptions): Promise<ProjectTrust> {
  const [folder, home, store] = await Promise.all([
    realpath(opts.workspace).catch(() => opts.workspace),
    realpath(opts.home).catch(() => opts.home),
    readTrustStore(opts.storeFile),
  ])
  const warnings: string[] = store.warning ? [store.warning] : []
  const now = opts.now ?? Date.now
  const match = matchTrust(store.entries, folder, home)
  const windows = () => (opts.windowsDir ? listWindows(opts.windowsDir, now) : [])
  let status: TrustStatus = opts.trustFlag
    ? { trusted: true, source: 'flag' }
    : match?.trusted
      ? storedTrust(match.entry, folder, windows(), (entry) => refreshRecord(opts.storeFile, entry, now))
      : match
        ? { trusted: false, source: 'store', entry: match.entry }
        : { trusted: false, source: 'none' }
  const listeners = new Set<(status: TrustStatus) => void>()

  const local = opts.loaded.sources.find((s) => s.scope === 'local' && s.exists && !s.claudeCode)
  let localTracked = false
  let localCheck: Promise<boolean> = Promise.resolve(false)
  const recorded = local ? await isRecordedLocalSettings(opts.ledgerFile, local.path) : true
  if (local && !recorded) {
    // Not written here by agent-tui, or changed since: it came with the folder (an archive has no git
    // to say it was committed), so it waits for trust like settings.json.
    localTracked = true
    if (!status.trusted) {
      warnings.push(
        `${relative(opts.workspace, local.path)} was not written by agent-tui here (or was changed since), so it counts as the repository's until you trust this folder`,
      )
    }
  } else if (local) {
    const rel = relative(opts.workspace, local.path)
    const isTracked = opts.isTracked ?? isTrackedByGit
    localCheck = isTracked(opts.workspace, rel).then((answer) => {
      if (answer === 'unknown') {
        warnings.push(`could not ask git whether ${rel} is committed; it is treated as the repository's`)
      }
      const tracked = answer !== false
      const changed = tracked !== localTracked
      localTracked = tracked
      return changed
    })
    const onlyRules = Object.keys(local.settings).every((k) => k === 'permissions' || k === '$schema')
    if (!onlyRules) await localCheck
  }

  // Claude Code's project files are the repository's, its settings.local.json too: agent-tui never wrote
  // it, so nothing says it is the user's (an archive can bring one).
  const projectBrought = (source: SettingsSource) =>
    source.scope === 'project' ||
    (source.scope === 'local' && (localTracked || source.claudeCode !== undefined))
  const settings = (trusted = status.trusted): FilteredSettings => {
    const filtered = filterProjectSettings(opts.loaded, { trusted, projectBrought, baseline: opts.baseline })
    return { ...filtered, loaded: withoutClaudeCode(filtered.loaded) }
  }
  let discovered: Promise<Contribution[]> | undefined

  const parent = dirname(folder)
  const set = (next: TrustStatus) => {
    status = next
    for (const listener of listeners) listener(next)
  }

  return {
    folder,
    storeFile: opts.storeFile,
    status: () => status,
    isTrusted: () => status.trusted,
    mayLoad: () => status.trusted,
    settings,
    contributions() {
      // The local file's git status decides whether its rules are the repository's: wait for it.
      discovered ??= localCheck.then(() =>
        discoverContributions(opts.workspace, settings(false).ignored, {
          // Claude Code's places are read (neither --no-claude-dirs nor the user's "claudeDirs": false).
          claudeCode: opts.loaded.sources.some((s) => s.claudeCode),
        }),
      )
      return discovered
    },
    parentToOffer: () => (parent === folder || isBroadFolder(parent, home) ? null : parent),
    isBroad: () => isBroadFolder(folder, home),
    async decide(choice) {
      const target = choice === 'trust-parent' ? parent : folder
      const trusted = choice !== 'distrust'
      const at = new Date(now()).toISOString()
      // What the folder holds now is what is trusted: the folder's own configuration as shown in the
      // prompt, and the rest of the tree but for what changed while commands or edits ran unasked.
      const prefix = relative(target, folder)
      const recorded = trusted
        ? { config: recordFor(target, windows(), ownConfig(folder), prefix), ...identityOf(target) }
        : {}
      try {
        const written = await updateTrustStore(
          opts.storeFile,
          (entries) => {
            const kept = entries.filter((e) => e.path !== target)
            // The folder's own "don't trust" would outrank a newly trusted parent.
            const cleared =
              choice === 'trust-parent' ? kept.filter((e) => !(e.path === folder && !e.trusted)) : kept
            return [...cleared, { path: target, trusted, at, ...recorded }]
          },
          now,
        )
        const applied = matchTrust(written.entries, folder, home)
        set(
          applied
            ? { trusted: applied.trusted, source: 'store', entry: applied.entry }
            : { trusted, source: 'session' },
        )
        const warning = written.keptCorruptAs
          ? `${opts.storeFile} was unreadable; it was kept as ${written.keptCorruptAs} and replaced`
          : undefined
        return { status, ...(warning ? { warning } : {}) }
      } catch (err) {
        set({ trusted, source: 'session' })
        return {
          status,
          warning: `could not remember this answer (${(err as Error).message}); it holds for this session only`,
        }
      }
    },
    subscribe(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    settled: () => localCheck,
    localIsYours: () => !localTracked,
    warnings: () => [...warnings],
  }
}

/**
 * A remembered "trust" applied to the folder: it holds while the folder's configuration is what was
 * trusted (see trust-fingerprint.ts); changes it accepts (the user's own edits) are recorded through
 * `refresh`, off the start-up path.
 */
function storedTrust(
  entry: TrustEntry,
  folder: string,
  windows: ReturnType<typeof listWindows>,
  refresh: (entry: () => TrustEntry) => void,
): TrustStatus {
  const prefix = relative(entry.path, folder)
  const own = ownConfig(folder)
  const id = prefix === '' ? folderIdentity(folder) : undefined
  const judged = judgeConfig({
    folder,
    own,
    record: entry.config,
    prefix,
    windows,
    sameFolder: prefix === '' && entry.id !== undefined ? id === entry.id : undefined,
  })
  if (!judged.ok) return { trusted: false, source: 'changed', entry, changes: judged.changes }
  const { record } = judged
  if (record) refresh(() => ({ ...entry, config: record }))
  else if (prefix === '' && (entry.config === undefined || entry.id === undefined))
    // Trusted before records were kept: what the folder holds now is recorded (unasked changes aside).
    refresh(() => ({ ...entry, config: entry.config ?? recordFor(folder, windows), ...(id ? { id } : {}) }))
  return { trusted: true, source: 'store', entry }
}

/** Off the start-up path: a walk of a large tree takes a while, and nothing at start needs it. */
function refreshRecord(storeFile: string, entry: () => TrustEntry, now: () => number): void {
  setTimeout(() => {
    const next = entry()
    void updateTrustStore(
      storeFile,
      (entries) => entries.map((e) => (e.path === next.path && e.trusted ? { ...e, ...next } : e)),
      now,
    ).catch(() => undefined)
  }, 1000).unref()
}

function identityOf(folder: string): { id?: string } {
  const id = folderIdentity(folder)
  return id ? { id } : {}
}

/** `~/code/app` for messages. */
export function tildePath(path: string, home: string): string {
  if (path === home) return '~'
  return path.startsWith(`${home}/`) ? `~/${path.slice(home.length + 1)}` : path
}
