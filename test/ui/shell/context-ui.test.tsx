import { describe, expect, it } from 'vitest'
import type { CompactionPreview, ContextReport } from '../../../source/agent/runtime/commands.js'
import type { Action } from '../../../source/store/actions.js'
import type { RequestStats } from '../../../source/store/domain.js'
import { createTheme } from '../../../source/ui/components/theme.js'
import { TuiRoot } from '../../../source/ui/tui-root.js'
import {
  EMPTY_PREVIEW,
  EMPTY_REPORT,
  fakeCommands,
  KEYS,
  makeStore,
  renderSized,
  waitFor,
} from './helpers.js'

const theme = createTheme({ level: 0 })

const CONVERSATION: Action[] = [
  { type: 'user/submitted', id: 'u1', content: 'use tabs, always', text: 'use tabs, always' },
  {
    type: 'assistant/settled',
    id: 'a1',
    message: {
      role: 'assistant',
      content: 'Reading it.',
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'Read', arguments: '{}' } }],
    },
  },
  {
    type: 'tool/finished',
    callId: 'c1',
    name: 'Read',
    summary: 'Read parser.ts',
    status: 'done',
    content: 'export function parse() {}',
    preview: 'export function parse() {}',
    display: null,
    durationMs: 5,
  },
]

function start(opts: { actions?: Action[]; preview?: CompactionPreview; report?: ContextReport } = {}) {
  const store = makeStore(opts.actions ?? CONVERSATION)
  const commands = fakeCommands({
    store,
    ...(opts.preview ? { preview: opts.preview } : {}),
    ...(opts.report ? { report: opts.report } : {}),
  })
  const r = renderSized(
    <TuiRoot
      store={store}
      commands={commands}
      contextLimit={32_768}
      theme={theme}
      doublePressMs={60_000}
      onExit={() => undefined}
    />,
    100,
    30,
  )
  const waitFrame = (text: string) => waitFor(() => r.frame().includes(text), r.frame)
  const run = async (line: string) => {
    r.stdin.write(line)
    await waitFrame(line)
    r.stdin.write(KEYS.enter)
  }
  return { ...r, store, commands, waitFrame, run }
}

const PREVIEW: CompactionPreview = {
  ...EMPTY_PREVIEW,
  ok: true,
  reason: undefined,
  focus: 'the parser',
  tokensNow: 20_500,
  summarise: {
    messages: 34,
    tokens: 15_200,
    user: 3,
    assistant: 12,
    tool: 19,
    samples: ['› fix the parser'],
  },
  keep: {
    systemTokens: 1200,
    toolsTokens: 4400,
    summaryBudget: 1638,
    latestRequest: '› now run the tests',
    pinned: ['› use tabs, always'],
    pinnedTokens: 12,
    recentMessages: 8,
    recentTokens: 2100,
  },
  tokensAfter: 9350,
}

describe('context economy in the TUI', () => {
  it('/compact shows what it will summarise and keep first; Enter compacts with the focus', async () => {
    const r = start({ preview: PREVIEW })
    await r.run('/compact the parser')
    await r.waitFrame('Compact the conversation?')
    const frame = r.frame()
    expect(frame).toContain('Now          ~21k of 33k tokens (63%); automatic compaction at ~23k (70%)')
    expect(frame).toContain('Summarise    34 messages, ~15k tokens: 3 from you, 12 replies, 19 tool results')
    expect(frame).toContain('your latest request, verbatim: › now run the tests')
    expect(frame).toContain('1 pinned (~12): › use tabs, always')
    expect(frame).toContain('After        ~9.3k tokens (29%) at most')
    expect(frame).toContain('Enter: compact · Esc: cancel')
    expect(r.commands.named('compactionPreview')).toEqual([['the parser']])
    expect(r.commands.named('compact')).toEqual([])
    r.stdin.write(KEYS.enter)
    await waitFor(() => r.commands.named('compact').length === 1)
    expect(r.commands.named('compact')[0]).toEqual(['the parser'])
    await r.waitFrame('Compacted: the model now sees a summary')
    r.instance.unmount()
  })

  it('/compact then Esc cancels without compacting', async () => {
    const r = start({ preview: PREVIEW })
    await r.run('/compact')
    await r.waitFrame('Compact the conversation?')
    r.stdin.write('x') // other keys do nothing: the question stays
    r.stdin.write(KEYS.esc)
    await r.waitFrame('Compaction cancelled; nothing changed')
    expect(r.commands.named('compact')).toEqual([])
    r.instance.unmount()
  })

  it('Ctrl+P pins the last message or card on screen, and again unpins it', async () => {
    const r = start()
    await r.waitFrame('Read parser.ts')
    r.stdin.write(KEYS.ctrl('p'))
    await r.waitFrame('Pinned: Read parser.ts — kept verbatim in the context')
    expect(r.commands.named('setPinned')).toEqual([['c1', true]])
    await r.waitFrame('Read parser.ts · 5ms · pinned')
    r.stdin.write(KEYS.ctrl('p'))
    await r.waitFrame('Unpinned: Read parser.ts')
    expect(r.commands.named('setPinned').at(-1)).toEqual(['c1', false])
    r.instance.unmount()
  })

  it('marks a pinned reply under its text', async () => {
    const r = start()
    await r.run('/pin reading it')
    await r.waitFrame('Pinned: reply “Reading it.”')
    await r.waitFrame('Reading it.\n  · pinned')
    r.instance.unmount()
  })

  it('/pin <text> pins the newest match, /pin lists pins, /unpin 1 unpins', async () => {
    const r = start()
    await r.run('/pin tabs')
    await r.waitFrame('Pinned: › use tabs, always')
    expect(r.commands.named('setPinned')).toEqual([['u1', true]])
    await r.waitFrame('› use tabs, always · pinned')
    await r.run('/pin')
    await r.waitFrame('Pinned messages and tool results are kept verbatim')
    expect(r.frame()).toContain('  1  › use tabs, always')
    r.stdin.write(KEYS.esc)
    await waitFor(() => !r.frame().includes('Pinned messages and tool results'), r.frame)
    await r.run('/unpin 1')
    await r.waitFrame('Unpinned: › use tabs, always')
    expect(r.commands.named('setPinned').at(-1)).toEqual(['u1', false])
    r.instance.unmount()
  })

  it('/context breaks the window down and shows what the last request saved', async () => {
    const last = {
      step: 7,
      promptBytes: 41_000,
      estimatedTokens: 9800,
      promptTokens: 10_240,
      cachedTokens: 8192,
      maskedBytesSaved: 30_000,
      spilledBytesSaved: 2000,
      maskedTokensSaved: 7400,
      spilledTokensSaved: 500,
      prefixBytes: 38_000,
      appendOnly: true,
    } as RequestStats
    const report: ContextReport = {
      ...EMPTY_REPORT,
      limitSource: 'endpoint',
      next: {
        system: 1200,
        tools: 4400,
        history: 2100,
        toolOutput: 1800,
        masked: 400,
        pinned: 300,
        summary: 0,
        total: 9900,
        maskedResults: 12,
        pinnedItems: 2,
        truncated: 0,
      },
      compactions: 1,
      last,
    }
    const r = start({ report })
    await r.run('/context')
    await r.waitFrame('Next request')
    const frame = r.frame()
    expect(frame).toContain("test-model · window 33k tokens (the endpoint's model listing)")
    expect(frame).toContain('~9.9k tokens (30%)')
    expect(frame).toMatch(/masked\s+~400\s+1%\s+12 results as placeholders/)
    expect(frame).toMatch(/pinned\s+~300\s+1%\s+2 items kept verbatim/)
    expect(frame).toContain('10k prompt tokens, 8.2k cached (80%)')
    expect(frame).toContain('masking and spill kept out 31.3 kB')
    expect(frame).toContain('(it only appended)')
    r.instance.unmount()
  })

  it('marks the context meter as an estimate until the endpoint reports usage, with the masked count', async () => {
    const stats = { estimatedTokens: 8192, masked: 6, promptTokens: null, cachedTokens: null } as RequestStats
    const r = start({ actions: [...CONVERSATION, { type: 'context/measured', stats }] })
    await r.waitFrame('ctx ~25% (6 masked)')
    r.store.dispatch({
      type: 'usage/recorded',
      usage: { input: 9830, output: 10, cached: 4915 },
      contextTokens: 9830,
    })
    await r.waitFrame('ctx 29% (50% cached, 6 masked)')
    r.instance.unmount()
  })
})
