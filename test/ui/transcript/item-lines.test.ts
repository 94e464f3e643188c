import stringWidth from 'string-width'
import { describe, expect, it } from 'vitest'
import type { Action } from '../../../source/store/actions.js'
import type { ToolDisplay } from '../../../source/store/domain.js'
import type { ToolItem, TranscriptItem } from '../../../source/store/state.js'
import { createTheme } from '../../../source/ui/components/theme.js'
import { renderItemLines } from '../../../source/ui/panes/transcript/item-lines.js'
import { apply, assistantSettled, baseState, plain, userSubmitted } from './fixtures.js'

const theme = createTheme({ level: 1 })

function lines(item: TranscriptItem | undefined, width = 60, expanded = false): string[] {
  if (!item) throw new Error('item missing')
  return plain(renderItemLines(item, width, { expanded, theme }))
}

function finished(
  callId: string,
  status: 'done' | 'error' | 'denied' | 'cancelled',
  extra: { display?: ToolDisplay | null; preview?: string; content?: string } = {},
): Action[] {
  return [
    { type: 'tool/started', callId, name: 'Bash', summary: 'npm test', at: 0 },
    {
      type: 'tool/finished',
      callId,
      name: 'Bash',
      summary: 'npm test',
      status,
      content: extra.content ?? 'result text',
      preview: extra.preview ?? '',
      display: extra.display ?? null,
      durationMs: 1500,
    },
  ]
}

function tool(actions: Action[], id: string): ToolItem {
  const item = apply(baseState(), ...actions).transcript.items[id]
  if (item?.kind !== 'tool') throw new Error('not a tool')
  return item
}

describe('renderItemLines', () => {
  it('renders a user message with the prompt marker and an image count', () => {
    const state = apply(baseState(), {
      type: 'user/submitted',
      id: 'u1',
      content: [
        { type: 'text', text: 'what is in these?' },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,AA' } },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,AA' } },
      ],
      text: 'what is in these?',
    })
    expect(lines(state.transcript.items.u1)).toEqual(['› what is in these? [2 images]'])
    const long = apply(baseState(), userSubmitted('u2', 'a b c d e f g h i j k l m n'))
    expect(lines(long.transcript.items.u2, 12)).toEqual(['› a b c d e', '  f g h i j', '  k l m n'])
  })

  it('renders assistant text as indented markdown and collapses reasoning to one line', () => {
    const state = apply(baseState(), assistantSettled('a1', '**Done.**\n\n- one', 'step 1\nstep 2\nstep 3'))
    const item = state.transcript.items.a1
    expect(lines(item)).toEqual(['∴ Thinking… (3 lines, Ctrl+O to expand)', '  Done.', '', '  • one'])
    expect(lines(item, 60, true)).toEqual([
      '∴ Thinking',
      '  step 1',
      '  step 2',
      '  step 3',
      '  Done.',
      '',
      '  • one',
    ])
  })

  it('renders a running tool with its live preview tail', () => {
    const item = tool(
      [
        { type: 'tool/started', callId: 't1', name: 'Bash', summary: 'npm test', at: 0 },
        { type: 'tool/progress', callId: 't1', preview: 'l1\nl2\nl3\nl4\nl5\nl6' },
      ],
      't1',
    )
    expect(lines(item)).toEqual([
      '◌ Bash npm test · running…',
      '  ⎿ … +2 earlier lines (Ctrl+O to expand)',
      '    l3',
      '    l4',
      '    l5',
      '    l6',
    ])
  })

  it('shows the tool name once when the summary starts with it', () => {
    const item = tool(
      [{ type: 'tool/started', callId: 't2', name: 'Read', summary: 'Read a.txt', at: 0 }],
      't2',
    )
    expect(lines(item)[0]).toBe('◌ Read a.txt · running…')
    const own = tool([{ type: 'tool/started', callId: 't3', name: 'Read', summary: 'Read', at: 0 }], 't3')
    expect(lines(own)[0]).toBe('◌ Read · running…')
  })

  it('says a card waits for approval or an answer, not "running…", while its prompt or dialog is open', () => {
    const started: Action = {
      type: 'tool/started',
      callId: 'w1',
      name: 'Write',
      summary: 'Write a.txt',
      at: 0,
    }
    const request = {
      id: 'c1',
      callId: 'w1',
      tool: 'Write',
      risk: 'edit' as const,
      summary: 'Write a.txt',
      reason: 'safe mode asks before edits',
      preview: { kind: 'none' as const },
      suggestedRule: 'Edit(a.txt)',
      createdAt: 0,
    }
    const waiting = tool([started, { type: 'consent/requested', request }], 'w1')
    expect(lines(waiting)[0]).toBe('◌ Write a.txt · waiting for approval')
    const answered = tool(
      [started, { type: 'consent/requested', request }, { type: 'consent/resolved', id: 'c1' }],
      'w1',
    )
    expect(lines(answered)[0]).toBe('◌ Write a.txt · running…')
    const asking = tool(
      [
        {
          type: 'tool/started',
          callId: 'q1',
          name: 'AskUserQuestion',
          summary: 'AskUserQuestion Colour',
          at: 0,
        },
        {
          type: 'question/requested',
          request: { id: 'q', kind: 'plan', callId: 'q1', plan: 'x', createdAt: 0 },
        },
      ],
      'q1',
    )
    expect(lines(asking)[0]).toBe('◌ AskUserQuestion Colour · waiting for your answer')
  })

  it('wraps a text card (an answer) at word boundaries, not mid-word', () => {
    const text = 'Which colour should the primary buttons use, given the brand guide? → Green'
    const item = tool(finished('a', 'done', { display: { kind: 'text', text } }), 'a')
    const out = lines(item, 40)
    for (const line of out.slice(1)) expect(line.length).toBeLessThanOrEqual(40)
    const words = out
      .slice(1)
      .map((line) => line.replace(/^ {2}⎿ | {4}/, '').trim())
      .join(' ')
    expect(words).toBe(text)
  })

  it('keeps a plan put to the user in the transcript: the decision and the plan as Markdown', () => {
    const plan = '# Plan\n\n1. Add the route\n2. Write tests'
    const item = tool(
      finished('p', 'done', { display: { kind: 'plan', verdict: 'Plan approved — AUTO mode', plan } }),
      'p',
    )
    const out = lines(item)
    expect(out[1]).toBe('  ⎿ Plan approved — AUTO mode')
    expect(out.join('\n')).toContain('Add the route')
    expect(out.join('\n')).toContain('Write tests')
  })

  it('marks each final status with its glyph and duration', () => {
    expect(lines(tool(finished('t', 'done'), 't'))[0]).toBe('✓ Bash npm test · 1.5s')
    expect(lines(tool(finished('t', 'error', { content: 'boom' }), 't'))).toEqual([
      '✗ Bash npm test · 1.5s',
      '  ⎿ boom',
    ])
    expect(lines(tool(finished('t', 'denied'), 't'))[0]).toBe('⊘ Bash npm test · denied · 1.5s')
    expect(lines(tool(finished('t', 'cancelled'), 't'))[0]).toBe('∅ Bash npm test · cancelled · 1.5s')
    const error = renderItemLines(tool(finished('t', 'error', { content: 'boom' }), 't'), 60, {
      expanded: false,
      theme,
    })
    expect(error[0]).toContain('\x1b[31m✗')
  })

  it('collapses output to a preview and expands it (capped) with Ctrl+O', () => {
    const output = Array.from({ length: 300 }, (_, i) => `row ${i}`).join('\n')
    const item = tool(finished('t', 'done', { preview: output, content: output }), 't')
    const collapsed = lines(item)
    expect(collapsed).toHaveLength(6)
    expect(collapsed[5]).toBe('    … +296 more lines (Ctrl+O to expand)')
    const expanded = lines(item, 60, true)
    expect(expanded).toHaveLength(1 + 200 + 1)
    expect(expanded.at(-1)).toBe('    … +100 more lines (/export for the full text)')
  })

  it('renders a diff display coloured and collapsed to its first lines', () => {
    const body = Array.from({ length: 20 }, (_, i) => `+added ${i}`).join('\n')
    const display: ToolDisplay = {
      kind: 'diff',
      path: 'src/a.ts',
      diff: `--- src/a.ts\n+++ src/a.ts\n@@ -0,0 +1,20 @@\n${body}\n`,
      added: 20,
      removed: 0,
      created: true,
    }
    const item = tool(finished('t', 'done', { display }), 't')
    const collapsed = lines(item)
    expect(collapsed[1]).toBe('  ⎿ +20 -0 (new file)')
    expect(collapsed[2]).toBe('    @@ -0,0 +1,20 @@')
    expect(collapsed.at(-1)).toBe('    … +10 more diff lines')
    expect(collapsed).toHaveLength(1 + 1 + 12)
    expect(renderItemLines(item, 60, { expanded: false, theme })[3]).toContain('\x1b[32m+added 0')
    expect(lines(item, 60, true)).toHaveLength(1 + 1 + 21)
  })

  it('renders a command display as output tail plus exit code', () => {
    const display: ToolDisplay = {
      kind: 'command',
      command: 'npm test',
      exitCode: 1,
      output: 'a\nb\nc\nd\ne\nFAIL',
      truncated: false,
    }
    expect(lines(tool(finished('t', 'done', { display }), 't'))).toEqual([
      '✓ Bash npm test · 1.5s',
      '  ⎿ … +2 earlier lines (Ctrl+O to expand)',
      '    c',
      '    d',
      '    e',
      '    FAIL',
      '    exit 1',
    ])
    const quiet: ToolDisplay = { kind: 'command', command: 'true', exitCode: 0, output: '', truncated: false }
    expect(lines(tool(finished('t', 'done', { display: quiet }), 't'))[1]).toBe('  ⎿ (no output)')
  })

  it('renders todos, lists, files, tasks and text displays', () => {
    const todos: ToolDisplay = {
      kind: 'todos',
      todos: [
        { content: 'Read code', status: 'completed', activeForm: 'Reading code' },
        { content: 'Fix bug', status: 'in_progress', activeForm: 'Fixing bug' },
        { content: 'Test', status: 'pending', activeForm: 'Testing' },
      ],
    }
    expect(lines(tool(finished('t', 'done', { display: todos }), 't')).slice(1)).toEqual([
      '  ⎿ ☑ Read code',
      '    ◐ Fixing bug',
      '    ☐ Test',
    ])
    const list: ToolDisplay = { kind: 'list', count: 2, truncated: false, items: ['a.ts', 'b.ts'] }
    expect(lines(tool(finished('t', 'done', { display: list }), 't')).slice(1)).toEqual([
      '  ⎿ 2 results',
      '    a.ts',
      '    b.ts',
    ])
    const file: ToolDisplay = { kind: 'file', path: 'a.ts', lines: 120, note: 'lines 1-100' }
    expect(lines(tool(finished('t', 'done', { display: file }), 't'))[1]).toBe('  ⎿ 120 lines · lines 1-100')
    const task: ToolDisplay = { kind: 'task', taskId: 'bash-1', status: 'running', output: 'listening' }
    expect(lines(tool(finished('t', 'done', { display: task }), 't')).slice(1)).toEqual([
      '  ⎿ task bash-1 · running',
      '    listening',
    ])
    const served: ToolDisplay = {
      kind: 'task',
      taskId: 'b1',
      status: 'running',
      output: 'ready',
      listening: ['127.0.0.1:5173 → http://localhost:5173/'],
    }
    expect(lines(tool(finished('t', 'done', { display: served }), 't')).slice(1)).toEqual([
      '  ⎿ task b1 · running',
      '    listening: 127.0.0.1:5173 → http://localhost:5173/',
      '    ready',
    ])
    const text: ToolDisplay = { kind: 'text', text: 'fetched 3 pages' }
    expect(lines(tool(finished('t', 'done', { display: text }), 't'))[1]).toBe('  ⎿ fetched 3 pages')
  })

  it('marks masked results and strips escape sequences from untrusted output', () => {
    const item = {
      ...tool(finished('t', 'done', { preview: '\x1b[2J\x1b[31mred\x1b[0m\r50%\r100%' }), 't'),
      masked: true,
    }
    expect(lines(item)).toEqual([
      '✓ Bash npm test · 1.5s',
      '  ⎿ 100%',
      '    (masked from model context; the model can Read it back)',
    ])
    // Narrow terminals wrap the mark instead of overflowing the row.
    expect(lines(item, 30).every((line) => stringWidth(line) <= 30)).toBe(true)
  })

  it('marks pinned messages, replies and tool results', () => {
    const pinned = { pinned: true }
    const user = apply(baseState(), userSubmitted('u1', 'keep this')).transcript.items.u1
    expect(lines({ ...(user as TranscriptItem), ...pinned } as TranscriptItem)).toEqual([
      '› keep this · pinned',
    ])
    const reply = {
      kind: 'assistant' as const,
      id: 'a',
      text: 'the plan',
      reasoning: '',
      streaming: false,
      pinned: true,
    }
    expect(lines(reply)).toEqual(['  the plan', '  · pinned'])
    const card = { ...tool(finished('t', 'done', { preview: 'ok' }), 't'), pinned: true }
    expect(lines(card)[0]).toBe('✓ Bash npm test · 1.5s · pinned')
  })

  it('renders notices by level', () => {
    const state = apply(
      baseState(),
      { type: 'notice/added', id: 'n1', level: 'info', text: 'Compacted the conversation' },
      { type: 'notice/added', id: 'n2', level: 'warn', text: 'Retrying (2/5)' },
      { type: 'notice/added', id: 'n3', level: 'error', text: 'Request failed' },
    )
    expect(lines(state.transcript.items.n1)).toEqual(['· Compacted the conversation'])
    expect(lines(state.transcript.items.n2)).toEqual(['⚠ Retrying (2/5)'])
    const error = renderItemLines(state.transcript.items.n3 as TranscriptItem, 60, { expanded: false, theme })
    expect(error[0]).toContain('\x1b[31m')
  })

  it('renders a hook card as one line, and its command and output under Ctrl+O', () => {
    const state = apply(baseState(), {
      type: 'hook/ran',
      id: 'h1',
      event: 'PreToolUse',
      level: 'warn',
      text: 'PreToolUse hook blocked Bash: no rm here',
      detail: '$ ./guard.sh\n~/.config/agent-tui/settings.json · exit 2 · 12 ms\nstderr:\nno rm here',
    })
    const item = state.transcript.items.h1
    expect(lines(item)).toEqual(['↪ PreToolUse hook blocked Bash: no rm here'])
    expect(lines(item, 60, true)).toEqual([
      '↪ PreToolUse hook blocked Bash: no rm here',
      '  ⎿ $ ./guard.sh',
      '    ~/.config/agent-tui/settings.json · exit 2 · 12 ms',
      '    stderr:',
      '    no rm here',
    ])
  })

  it('never returns a line wider than the width', () => {
    const state = apply(
      baseState(),
      userSubmitted('u', 'x'.repeat(100)),
      assistantSettled('a', `${'word '.repeat(40)}\n\n\`\`\`\n${'y'.repeat(100)}\n\`\`\``),
      ...finished('t', 'done', { preview: 'z'.repeat(100) }),
    )
    for (const id of state.transcript.order) {
      const item = state.transcript.items[id] as TranscriptItem
      for (const width of [8, 20, 33]) {
        for (const line of renderItemLines(item, width, { expanded: true, theme })) {
          expect(stringWidth(line)).toBeLessThanOrEqual(width)
        }
      }
    }
  })
})
