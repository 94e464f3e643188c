import { describe, expect, it } from 'vitest'
import { transcriptToMarkdown } from '../../../source/ui/panes/transcript/export.js'
import { apply, assistantSettled, baseState, userSubmitted } from './fixtures.js'

describe('transcriptToMarkdown', () => {
  it('writes every user message, reply, tool call with its result, and notice', () => {
    const state = apply(
      baseState(),
      userSubmitted('u1', 'Run the tests'),
      assistantSettled('a1', 'Running them now.', 'The user wants tests.'),
      { type: 'tool/started', callId: 't1', name: 'Bash', summary: 'npm test', at: 0 },
      {
        type: 'tool/finished',
        callId: 't1',
        name: 'Bash',
        summary: 'npm test',
        status: 'done',
        content: 'exit 1\nFAIL a.test.ts',
        preview: 'FAIL a.test.ts',
        display: {
          kind: 'command',
          command: 'npm test',
          exitCode: 1,
          output: 'FAIL a.test.ts',
          truncated: false,
        },
        durationMs: 2500,
      },
      { type: 'tool/started', callId: 't2', name: 'Read', summary: 'notes.md', at: 0 },
      {
        type: 'tool/finished',
        callId: 't2',
        name: 'Read',
        summary: 'notes.md',
        status: 'done',
        content: 'has ``` fences inside',
        preview: '',
        display: { kind: 'file', path: 'notes.md', lines: 1 },
        durationMs: 5,
      },
      { type: 'notice/added', id: 'n1', level: 'warn', text: 'Retrying (1/5)' },
    )
    expect(transcriptToMarkdown(state)).toBe(
      [
        '# Fix the parser',
        '',
        '_test-model · /work/project · sess-1 · 2026-11-01T12:00:00.000Z_',
        '',
        '## User',
        '',
        'Run the tests',
        '',
        '## Assistant',
        '',
        '> **Thinking**',
        '>',
        '> The user wants tests.',
        '',
        'Running them now.',
        '',
        '### Tool `Bash` npm test (done, 2.5s)',
        '',
        '```sh',
        '$ npm test',
        '```',
        '',
        '_exit 1_',
        '',
        '```',
        'FAIL a.test.ts',
        '```',
        '',
        '### Tool `Read` notes.md (done, 5ms)',
        '',
        '`notes.md` (1 line)',
        '',
        '````',
        'has ``` fences inside',
        '````',
        '',
        '> **warn:** Retrying (1/5)',
        '',
      ].join('\n'),
    )
  })

  it('exports a reply that was still streaming and marks masked results', () => {
    const state = apply(baseState(), { type: 'assistant/delta', id: 'a1', text: 'partial' })
    expect(transcriptToMarkdown(state)).toContain('partial\n\n_(interrupted while streaming)_')
    const masked = {
      ...state,
      transcript: {
        ...state.transcript,
        order: [...state.transcript.order, 't'],
        items: {
          ...state.transcript.items,
          t: {
            kind: 'tool' as const,
            id: 't',
            name: 'Grep',
            summary: 'foo',
            status: 'done' as const,
            startedAt: 0,
            durationMs: 10,
            preview: '',
            display: null,
            result: 'a.ts:1:foo',
            masked: true,
          },
        },
      },
    }
    expect(transcriptToMarkdown(masked)).toContain(
      '### Tool `Grep` foo (done, 10ms, masked from model context)',
    )
  })
})
