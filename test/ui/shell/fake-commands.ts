/** Renderer-free fakes: a store in a given state and a recording RuntimeCommands. */
import type {
  CompactionPreview,
  ContextReport,
  AgentListing,
  SkillListing,
  HooksView,
  ImageAttachment,
  MemoryFile,
  StatusReport,
  ModelList,
  PermissionRulesView,
  RewindReport,
  RewindTurn,
  RuntimeCommands,
  SessionSummary,
  SubmitInput,
} from '../../../source/agent/runtime/commands.js'
import { modeChangeRefusal } from '../../../source/permissions/modes.js'
import { sliceOfBuffer } from '../../../source/tasks/log-slice.js'
import type { Action } from '../../../source/store/actions.js'
import { createStore, type Store } from '../../../source/store/create-store.js'
import type { Mode } from '../../../source/store/domain.js'
import { reducer } from '../../../source/store/reducer.js'
import { initialState, type State } from '../../../source/store/state.js'

export function makeState(actions: Action[] = [], mode: Mode = 'safe'): State {
  const base = initialState(
    {
      id: 's1',
      cwd: '/tmp/project',
      model: 'test-model',
      baseUrl: 'http://127.0.0.1:1/v1',
      title: '',
      startedAt: 0,
    },
    mode,
  )
  return actions.reduce(reducer, base)
}

export function makeStore(actions: Action[] = [], mode: Mode = 'safe'): Store {
  return createStore(makeState(actions, mode))
}

export interface Call {
  name: keyof RuntimeCommands
  args: unknown[]
}

export interface FakeCommands extends RuntimeCommands {
  calls: Call[]
  named(name: keyof RuntimeCommands): unknown[][]
}

/**
 * A recording RuntimeCommands. With a store, `setMode`/`setModel` also dispatch what the runtime
 * would (`setMode` under the same mode policy), so sequences (Shift+Tab cycling) see the new state.
 */
export function fakeCommands(
  opts: {
    store?: Store
    taskLog?: string
    background?: boolean
    image?: ImageAttachment
    rules?: PermissionRulesView
    hooks?: HooksView
    memory?: MemoryFile[]
    status?: StatusReport
    sessions?: SessionSummary[]
    preview?: CompactionPreview
    report?: ContextReport
    models?: ModelList
    /** What `supportsVision` answers (default: true). */
    vision?: boolean
    /** What `unqueue` hands back, newest last; each call also drops the newest of `state.queued`. */
    queued?: SubmitInput[]
    rewindTurns?: RewindTurn[]
    agents?: AgentListing
    skills?: SkillListing
    /** `saveEditorMode` rejects with this message. */
    saveError?: string
    /** Background subagents' stores, by task id. */
    transcripts?: Record<string, Store>
    /** What rewind/undoRewind resolve with (given their arguments); default: nothing to change. */
    rewindReport?: (call: {
      turn?: string
      scope?: string
      force?: boolean
      dryRun?: boolean
    }) => RewindReport
  } = {},
): FakeCommands {
  const calls: Call[] = []
  const record = (name: keyof RuntimeCommands, args: unknown[]) => calls.push({ name, args })
  return {
    calls,
    named: (name) => calls.filter((c) => c.name === name).map((c) => c.args),
    submit: (input: SubmitInput) => record('submit', [input]),
    unqueue: () => {
      record('unqueue', [])
      const input = opts.queued?.pop() ?? null
      const last = opts.store?.getState().queued.at(-1)
      if (input && last) opts.store?.dispatch({ type: 'queue/removed', ids: [last.id] })
      return input
    },
    interrupt: () => record('interrupt', []),
    resolveConsent: (id, decision) => record('resolveConsent', [id, decision]),
    answerQuestion: (id, answer) => record('answerQuestion', [id, answer]),
    resolveTrust: (id, choice) => record('resolveTrust', [id, choice]),
    reviewTrust: () => record('reviewTrust', []),
    setMode: (mode) => {
      record('setMode', [mode])
      const refusal = opts.store ? modeChangeRefusal(mode, opts.store.getState().launchMode) : null
      if (refusal) return { ok: false, reason: refusal }
      opts.store?.dispatch({ type: 'mode/changed', mode })
      return { ok: true, mode }
    },
    stopTask: async (id) => {
      record('stopTask', [id])
    },
    openTaskUrl: (id) => {
      record('openTaskUrl', [id])
    },
    backgroundForeground: () => {
      record('backgroundForeground', [])
      return opts.background ?? false
    },
    readTaskLog: async (id, max, range) => {
      record('readTaskLog', range ? [id, max, range] : [id, max])
      return sliceOfBuffer(Buffer.from(opts.taskLog ?? ''), max, range)
    },
    runShell: async (command) => {
      record('runShell', [command])
    },
    loadImage: async (path) => {
      record('loadImage', [path])
      return opts.image ?? { path, url: 'data:image/png;base64,AAAA' }
    },
    supportsVision: () => opts.vision ?? true,
    exportTranscript: async (path) => {
      record('exportTranscript', [path])
      return path ?? '/tmp/project/transcript.md'
    },
    clear: () => record('clear', []),
    runMcpPrompt: async (command, args) => {
      record('runMcpPrompt', [command, args])
    },
    reconnectMcpServer: (name) => record('reconnectMcpServer', [name]),
    authenticateMcpServer: (name) => record('authenticateMcpServer', [name]),
    setMcpEnabled: async (server, enabled, tool) => {
      record('setMcpEnabled', tool === undefined ? [server, enabled] : [server, enabled, tool])
      return `${tool ?? server} turned ${enabled ? 'on' : 'off'}`
    },
    addMcpServer: async (name, server, save) => {
      record('addMcpServer', [name, server, save])
      return `added ${name}`
    },
    removeMcpServer: async (name) => {
      record('removeMcpServer', [name])
      return `removed ${name}`
    },
    setModel: (model) => {
      record('setModel', [model])
      opts.store?.dispatch({ type: 'model/changed', model })
    },
    hooks: () => {
      record('hooks', [])
      return opts.hooks ?? { active: [], inactive: [], warnings: [] }
    },
    listModels: async () => {
      record('listModels', [])
      return opts.models ?? { models: [] }
    },
    endpointHeaders: () => [],
    pluginLines: async () => [],
    setPluginEnabled: async (name, enabled) => [`${enabled ? 'enabled' : 'disabled'} ${name}`],
    saveEditorMode: async (mode) => {
      record('saveEditorMode', [mode])
      if (opts.saveError) throw new Error(opts.saveError)
      return '/home/u/.config/agent-tui/settings.json'
    },
    permissionRules: () => {
      record('permissionRules', [])
      return opts.rules ?? { allow: [], ask: [], deny: [], savedTo: '.agent-tui/settings.local.json' }
    },
    memoryFiles: async () => {
      record('memoryFiles', [])
      return opts.memory ?? []
    },
    status: () => {
      record('status', [])
      return opts.status ?? { sections: [] }
    },
    listSessions: async () => {
      record('listSessions', [])
      return opts.sessions ?? []
    },
    forkSession: async (turn) => {
      record('forkSession', [turn])
      return { id: 'fork-1', title: 'x (fork)' }
    },
    renameSession: async (title) => {
      record('renameSession', [title])
      return title.trim()
    },
    addMemory: async (text) => {
      record('addMemory', [text])
      return '.agent-tui/memory.md'
    },
    rewindTurns: () => {
      record('rewindTurns', [])
      return opts.rewindTurns ?? []
    },
    rewind: async (turn, scope, o = {}) => {
      record('rewind', [turn, scope, o])
      return opts.rewindReport?.({ turn, scope, ...o }) ?? emptyReport(scope, o.dryRun !== true)
    },
    undoRewind: async (o = {}) => {
      record('undoRewind', [o])
      return opts.rewindReport?.({ ...o }) ?? emptyReport('both', o.dryRun !== true)
    },
    compactionPreview: async (focus) => {
      record('compactionPreview', [focus])
      return opts.preview ?? { ...EMPTY_PREVIEW, ...(focus ? { focus } : {}) }
    },
    compact: async (focus) => {
      record('compact', [focus])
      return true
    },
    setPinned: (id, pinned) => {
      record('setPinned', [id, pinned])
      opts.store?.dispatch({ type: 'context/pinned', id, pinned })
      return null
    },
    contextReport: () => {
      record('contextReport', [])
      return opts.report ?? EMPTY_REPORT
    },
    listAgents: () => {
      record('listAgents', [])
      return opts.agents ?? { current: 'build', agents: [], problems: [] }
    },
    listSkills: () => {
      record('listSkills', [])
      return opts.skills ?? { skills: [], problems: [] }
    },
    switchAgent: async (name) => {
      record('switchAgent', [name])
      opts.store?.dispatch({ type: 'agent/changed', agent: name })
      return `The main session now runs as the ${name} agent.`
    },
    agentTranscript: (id) => {
      record('agentTranscript', [id])
      return opts.transcripts?.[id] ?? null
    },
    shutdown: async () => {
      record('shutdown', [])
    },
  }
}

const ZERO_BREAKDOWN = { system: 0, tools: 0, history: 0, toolOutput: 0, masked: 0, pinned: 0, summary: 0 }

export const EMPTY_PREVIEW: CompactionPreview = {
  ok: false,
  reason: 'nothing to summarise yet: only 0 messages so far; the recent ones are always kept',
  contextLimit: 32_768,
  triggerTokens: 22_937,
  tokensNow: 0,
  summarise: { messages: 0, tokens: 0, user: 0, assistant: 0, tool: 0, samples: [] },
  keep: {
    systemTokens: 0,
    toolsTokens: 0,
    summaryBudget: 1638,
    pinned: [],
    pinnedTokens: 0,
    recentMessages: 0,
    recentTokens: 0,
  },
  tokensAfter: 0,
}

export const EMPTY_REPORT: ContextReport = {
  model: 'test-model',
  contextLimit: 32_768,
  limitSource: 'profile',
  budget: { prompt: 27_853, reply: 3277, margin: 1638, scale: 1 },
  compactAt: 0.7,
  observationWindow: 4,
  masking: true,
  next: { ...ZERO_BREAKDOWN, total: 0, maskedResults: 0, pinnedItems: 0, truncated: 0 },
  exact: false,
  compactions: 0,
  last: null,
}

function emptyReport(scope: RewindReport['scope'], applied: boolean): RewindReport {
  return {
    scope,
    restore: [],
    remove: [],
    outside: [],
    kept: [],
    droppedTurns: 0,
    notes: [],
    applied,
    undoable: applied,
  }
}
