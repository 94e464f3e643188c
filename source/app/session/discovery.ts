import type { StatusEntry, StatusReport } from '../../agent/runtime/commands.js'
import type { LoadedInstructions } from '../../agent/prompt/instructions.js'
import type { SettingsSource } from '../../config/load.js'
import type { IgnoredSetting } from '../../config/project-settings-filter.js'
import type { McpServerView } from '../../store/domain.js'
import { shownPath } from '../../agent/prompt/project-memory.js'
import type { ClaudeCodePaths } from '../../config/claude-code.js'
import type { ProjectTrust } from '../../config/project-trust.js'
import type { ResolvedConfig } from '../../config/resolve-config.js'
import type { Store } from '../../store/create-store.js'

/**
 * What a session loaded from where, for `/status`, the headless `init` event and the debug log: each
 * loader records its part as it loads (again when a trust answer changes it); the MCP servers are read
 * live. Plain data in, plain data out.
 */

export type DiscoveryTopic =
  | 'places'
  | 'settings'
  | 'instructions'
  | 'nested'
  | 'commands'
  | 'agents'
  | 'skills'
  | 'mcp'

const TITLES: ReadonlyArray<[DiscoveryTopic, string]> = [
  ['places', "Claude Code's places"],
  ['settings', 'Settings files'],
  ['instructions', 'Instructions in the system prompt'],
  ['nested', 'CLAUDE.md files read later (as messages)'],
  ['commands', 'Commands'],
  ['agents', 'Agents'],
  ['skills', 'Skills'],
  ['mcp', 'MCP servers'],
]

export interface Discovery {
  set(topic: DiscoveryTopic, entries: StatusEntry[]): void
  add(topic: DiscoveryTopic, entry: StatusEntry): void
  report(): StatusReport
}

/** Topics read when the report is made (the settings as trust has them now, the MCP servers' state). */
export interface LiveTopics {
  settings?: () => StatusEntry[]
  mcp?: () => McpServerView[]
}

export function createDiscovery(live: LiveTopics = {}): Discovery {
  const topics = new Map<DiscoveryTopic, StatusEntry[]>()
  return {
    set: (topic, entries) => topics.set(topic, [...entries]),
    add: (topic, entry) => topics.set(topic, [...(topics.get(topic) ?? []), entry]),
    report() {
      const all = new Map(topics)
      const settings = live.settings?.()
      if (settings) all.set('settings', settings)
      const mcp = live.mcp?.()
      if (mcp && mcp.length > 0) all.set('mcp', mcp.map(serverEntry))
      return {
        sections: TITLES.flatMap(([topic, title]) => {
          const entries = all.get(topic)
          return entries && entries.length > 0 ? [{ title, entries }] : []
        }),
      }
    },
  }
}

/**
 * A session's record: the settings files as the folder's trust has them when asked, the MCP servers as
 * the store has them, and where Claude Code's places are (or what turned them off).
 */
export function sessionDiscovery(opts: {
  config: Pick<ResolvedConfig, 'sources' | 'claudeDirsOffBy'>
  claude: ClaudeCodePaths | null
  store: Pick<Store, 'getState'>
  home: string
  workspace: string
  trust?: ProjectTrust
  /** `~/.claude.json`, once read. */
  userState?: () => SettingsSource | null
}): Discovery {
  const { trust } = opts
  const discovery = createDiscovery({
    settings: () =>
      settingsEntries(
        [
          ...(opts.userState?.() ? [opts.userState()!] : []),
          ...(trust?.settings(trust.isTrusted()).loaded.sources ?? opts.config.sources),
        ],
        trust?.settings(trust.isTrusted()).ignored ?? [],
      ),
    mcp: () => opts.store.getState().mcp.servers,
  })
  discovery.set(
    'places',
    placesEntries({
      on: opts.claude !== null,
      ...(opts.config.claudeDirsOffBy ? { offBy: opts.config.claudeDirsOffBy } : {}),
      userDir: opts.claude ? shownPath(opts.claude.userDir, opts.workspace, opts.home) : '',
      projectDir: opts.claude ? shownPath(opts.claude.projectDir, opts.workspace, opts.home) : '',
    }),
  )
  return discovery
}

/** Whether Claude Code's places are read, and where they are. */
export function placesEntries(opts: {
  on: boolean
  /** Why they are off: the flag or the setting. */
  offBy?: string
  userDir: string
  projectDir: string
}): StatusEntry[] {
  if (!opts.on) return [{ what: 'off', note: opts.offBy ?? 'turned off', skipped: true }]
  return [
    { what: opts.userDir, note: "the user's: CLAUDE.md, settings.json, commands, agents, skills" },
    {
      what: opts.projectDir,
      note: "the project's (with CLAUDE.md and CLAUDE.local.md): once the folder is trusted",
    },
  ]
}

/**
 * Each settings file that exists: what it gives, what waits for trust, what is ignored and why.
 * `untrusted` are the items the trust filter held back (config/project-settings-filter.ts).
 */
export function settingsEntries(
  sources: readonly SettingsSource[],
  untrusted: readonly IgnoredSetting[],
): StatusEntry[] {
  const entries: StatusEntry[] = []
  for (const source of sources) {
    if (!source.exists) continue
    const unreadable = source.claudeCode?.unreadable
    if (unreadable) {
      entries.push({ what: source.label, note: `not read: ${unreadable}`, skipped: true })
      continue
    }
    entries.push({ what: source.label, note: settingsSummary(source) })
    const waiting = untrusted.filter((i) => i.file === source.label)
    if (waiting.length > 0)
      entries.push({
        what: `  ${source.label}`,
        note: `waits for trust: ${waiting.map((w) => w.label).join(', ')}`,
        skipped: true,
      })
    for (const ignored of source.claudeCode?.ignored ?? [])
      entries.push({ what: `  ${source.label}`, note: `ignored: ${ignored}`, skipped: true })
  }
  return entries
}

function settingsSummary(source: SettingsSource): string {
  const s = source.settings
  const rules = (['allow', 'ask', 'deny'] as const)
    .map((k) => [k, s.permissions?.[k]?.length ?? 0] as const)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${n} ${k}`)
  const hooks = Object.values(s.hooks ?? {}).reduce((n, groups) => n + groups.length, 0)
  const parts = [
    ...(rules.length ? [`rules: ${rules.join(', ')}`] : []),
    ...(hooks ? [`${hooks} hook group${hooks === 1 ? '' : 's'}`] : []),
    ...(s.mode ? [`mode ${s.mode}`] : []),
    ...(s.env ? [`env: ${Object.keys(s.env).join(', ')}`] : []),
    ...(s.additionalDirectories?.length ? [`${s.additionalDirectories.length} added directories`] : []),
    ...(s.mcpServers && Object.keys(s.mcpServers).length
      ? [`MCP servers: ${Object.keys(s.mcpServers).join(', ')}`]
      : []),
    ...(source.claudeCode?.preferredModel
      ? [`model ${source.claudeCode.preferredModel} if the endpoint lists it`]
      : []),
  ]
  const others = Object.keys(s).filter(
    (k) =>
      !['permissions', 'hooks', 'mode', 'env', 'additionalDirectories', 'mcpServers', '$schema'].includes(k),
  )
  if (others.length) parts.push(others.join(', '))
  return parts.length ? parts.join('; ') : 'nothing that applies'
}

/** The instruction files in the prompt, with their imports, and those left out and why. */
export function instructionEntries(loaded: LoadedInstructions): StatusEntry[] {
  return [
    ...loaded.sections.map((s) => ({
      what: s.label,
      note: `${s.text.length.toLocaleString('en-US')} characters${s.truncated ? ' (cut)' : ''}${s.importedBy ? `, imported by ${s.importedBy}` : ''}`,
    })),
    ...loaded.skipped
      .filter((s) => s.reason !== 'missing' || s.importedBy)
      .map((s) => ({
        what: s.label,
        note: `${s.importedBy ? `imported by ${s.importedBy}: ` : ''}left out: ${s.why}`,
        skipped: true,
      })),
  ]
}

function serverEntry(view: McpServerView): StatusEntry {
  const status = view.error ? `${view.status}: ${view.error}` : view.status
  return {
    what: `${view.name} (${view.source})`,
    note: `${view.transport} ${view.target}: ${status}`,
    ...(view.status === 'disabled-untrusted' || view.status === 'failed' ? { skipped: true } : {}),
  }
}
