import type { PromptContext } from '../../agent/prompt/system-prompt.js'
import { createNestedInstructions } from '../../agent/prompt/nested-instructions.js'
import { placesOfCall } from '../../agent/prompt/nested-instructions.js'
import type { Announcement } from '../../agent/runtime/announcements.js'
import type { StatusEntry } from '../../agent/runtime/commands.js'
import { type ClaudeCodePaths, claudeCodePaths } from '../../config/claude-code.js'
import type { ProjectTrust } from '../../config/project-trust.js'
import type { ResolvedConfig } from '../../config/resolve-config.js'
import { realPathOf } from '../../permissions/real-path.js'
import { readClaudeState, type SettingsSource } from '../../config/load.js'
import { shownPath } from '../../agent/prompt/project-memory.js'
import type { Action } from '../../store/actions.js'
import type { Store } from '../../store/create-store.js'
import type { State } from '../../store/state.js'
import type { InstructionReader } from '../../tools/instruction-file.js'
import { type Discovery, type DiscoveryTopic, instructionEntries, sessionDiscovery } from './discovery.js'

/**
 * A session's view of Claude Code's places (docs/coming-from-claude-code.md): where they are (null when
 * `--no-claude-dirs` or `"claudeDirs": false` turn them off), the `/status` record each loader writes
 * into, and the CLAUDE.md files below the working folder, read when the agent first works there.
 */
export interface ClaudePlaces {
  claude: ClaudeCodePaths | null
  /**
   * `~/.claude` as named and its real path (the user's reader may read there), when the places are read.
   * Both: a file is judged as named and as resolved, and a dotfiles setup links `~/.claude` elsewhere.
   */
  claudeUserDirs: string[]
  discovery: Discovery
  /** `~/.claude.json`'s MCP servers: read once, on the first `read()` (when MCP servers start). */
  userState?: { read(): Promise<SettingsSource>; now(): SettingsSource | null }
  /** What a commands, agents or skills loader is given: the places, and where it records its folders. */
  layers(topic: DiscoveryTopic): { claude: ClaudeCodePaths | null; record(entries: StatusEntry[]): void }
  /** What the system prompt is given: `~/.claude/CLAUDE.md` and imports, the files it read, the record. */
  prompt(readUser: InstructionReader): Pick<PromptContext, 'claude' | 'seen' | 'loaded'>
  /**
   * Starts following where the agent works (an observer of the session's actions): nested CLAUDE.md
   * files become announcements, taken with `take` at the model's next step.
   */
  follow(
    read: InstructionReader,
    cwd: () => string,
  ): {
    observe(action: Action, state: State): void
    take(): Announcement[]
    ready(): Promise<void>
  }
}

export async function claudePlaces(opts: {
  config: Pick<ResolvedConfig, 'sources' | 'claudeDirsOffBy' | 'claudeDirs'>
  home: string
  workspace: string
  store: Pick<Store, 'getState' | 'dispatch'>
  setup: { trust: ProjectTrust } | undefined
}): Promise<ClaudePlaces> {
  const claude = opts.config.claudeDirs ? claudeCodePaths(process.env, opts.home, opts.workspace) : null
  const claudeUserDirs = claude ? [...new Set([claude.userDir, await realPathOf(claude.userDir)])] : []
  const trust = opts.setup ? { trust: opts.setup.trust } : {}
  let state: SettingsSource | null = null
  let reading: Promise<SettingsSource> | undefined
  const userState = claude
    ? {
        read: () =>
          (reading ??= readClaudeState(
            claude.userState,
            opts.workspace,
            shownPath(claude.userState, opts.workspace, opts.home),
          ).then((read) => {
            state = read
            if (read.claudeCode?.unreadable)
              opts.store.dispatch({
                type: 'notice/added',
                id: 'claude-json-unreadable',
                level: 'warn',
                text: `${read.label} was not read: ${read.claudeCode.unreadable}`,
              })
            return read
          })),
        now: () => state,
      }
    : undefined
  const discovery = sessionDiscovery({ ...opts, claude, ...trust, userState: () => state })
  // Real paths of the instruction files in the prompt: a nested CLAUDE.md already in it is not sent again.
  const seen = new Set<string>()
  return {
    claude,
    claudeUserDirs,
    discovery,
    ...(userState ? { userState } : {}),
    layers: (topic) => ({ claude, record: (entries) => discovery.set(topic, entries) }),
    prompt: (readUser) => ({
      ...(claude ? { claude: { userMemory: claude.userMemory, readUser, home: opts.home } } : {}),
      seen,
      loaded: (loaded) => discovery.set('instructions', instructionEntries(loaded)),
    }),
    follow(read, cwd) {
      if (!claude) return { observe: () => {}, take: () => [], ready: async () => {} }
      let notices = 0
      // A file left out is said where the user looks, when it happens (not a start-up notice).
      const report = (text: string) =>
        opts.store.dispatch({
          type: 'notice/added',
          id: `nested-instructions-${++notices}`,
          level: 'warn',
          text,
        })
      const nested = createNestedInstructions({
        workspace: opts.workspace,
        home: opts.home,
        read,
        seen,
        record: (loaded) => {
          for (const entry of instructionEntries(loaded)) discovery.add('nested', entry)
        },
        report,
      })
      return {
        observe(action) {
          // The calls' paths are known once the step is settled, before they run: the read starts then.
          if (action.type === 'assistant/settled')
            for (const call of action.message.tool_calls ?? [])
              nested.touched(placesOfCall(call.function.name, call.function.arguments), cwd())
          // A `cd` in a command moves where the agent works.
          if (action.type === 'tool/finished' && action.name === 'Bash')
            nested.touched([{ path: cwd(), file: false }], cwd())
        },
        take: () => nested.take(),
        ready: () => nested.ready(),
      }
    },
  }
}
