import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  createClaudeTranscript,
  transcriptLines,
  transcriptPathFor,
} from '../../../source/session/claude-transcript.js'
import type { ChatMessage } from '../../../source/store/messages.js'

const ctx = { sessionId: 's-1', cwd: () => '/work/app', model: () => 'qwen3', version: '0.1.0' }
const NOW = () => '2026-09-01T10:00:00.000Z'

const conversation: ChatMessage[] = [
  { role: 'user', content: 'list the files' },
  {
    role: 'assistant',
    content: 'Looking.',
    reasoning: 'ls is enough',
    tool_calls: [
      { id: 'call_1', type: 'function', function: { name: 'Bash', arguments: '{"command":"ls"}' } },
    ],
  },
  { role: 'tool', tool_call_id: 'call_1', content: 'a.txt\nb.txt' },
  { role: 'system', content: 'Background job b1 finished.' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [{ id: 'call_2', type: 'function', function: { name: 'Read', arguments: '{"file_path":' } }],
  },
  { role: 'tool', tool_call_id: 'call_2', content: '{"error":{"tool":"Read","category":"validation"}}' },
  {
    role: 'user',
    content: [
      { type: 'text', text: 'and this?' },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0=' } },
    ],
  },
  { role: 'assistant', content: 'Two files. <promise>DONE</promise>' },
]

describe('transcriptLines: Claude Code shapes', () => {
  const { lines } = transcriptLines(conversation, ctx, 0, null, NOW)
  const shape = lines.map((l) => {
    const m = l.message as { role: string; content: unknown }
    return [
      l.type,
      m.role,
      typeof m.content === 'string'
        ? 'string'
        : (m.content as Array<{ type: string }>).map((b) => b.type).join('+'),
    ]
  })

  it('one line per user message and per assistant block, tool results as user lines', () => {
    expect(shape).toEqual([
      ['user', 'user', 'string'],
      ['assistant', 'assistant', 'thinking'],
      ['assistant', 'assistant', 'text'],
      ['assistant', 'assistant', 'tool_use'],
      ['user', 'user', 'tool_result'],
      ['user', 'user', 'string'],
      ['assistant', 'assistant', 'tool_use'],
      ['user', 'user', 'tool_result'],
      ['user', 'user', 'text+image'],
      ['assistant', 'assistant', 'text'],
    ])
  })

  it('chains uuids, shares one message id per assistant message, and carries the session fields', () => {
    for (let i = 1; i < lines.length; i++) expect(lines[i]?.parentUuid).toBe(lines[i - 1]?.uuid)
    expect(lines[0]?.parentUuid).toBeNull()
    const ids = lines.slice(1, 4).map((l) => (l.message as { id: string }).id)
    expect(new Set(ids).size).toBe(1)
    expect(ids[0]).toMatch(/^msg_[0-9a-f]{24}$/)
    expect(lines[0]).toMatchObject({
      isSidechain: false,
      userType: 'external',
      cwd: '/work/app',
      sessionId: 's-1',
      version: '0.1.0',
      timestamp: '2026-09-01T10:00:00.000Z',
    })
    expect(String(lines[0]?.uuid)).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    )
  })

  it('tool_use input is the parsed arguments ({} when they are not JSON), results say is_error', () => {
    const msg = (i: number) => lines[i]?.message as Record<string, unknown>
    expect((msg(3) as unknown as { content: unknown[] }).content[0]).toEqual({
      type: 'tool_use',
      id: 'call_1',
      name: 'Bash',
      input: { command: 'ls' },
    })
    expect((msg(3) as unknown as { stop_reason: string }).stop_reason).toBe('tool_use')
    expect((msg(6) as unknown as { content: Array<{ input: unknown }> }).content[0]?.input).toEqual({})
    expect((msg(4) as unknown as { content: unknown[] }).content[0]).toEqual({
      tool_use_id: 'call_1',
      type: 'tool_result',
      content: 'a.txt\nb.txt',
      is_error: false,
    })
    expect((msg(7) as unknown as { content: Array<{ is_error: boolean }> }).content[0]?.is_error).toBe(true)
    expect(lines[5]).toMatchObject({ isMeta: true })
    expect((msg(8) as unknown as { content: unknown[] }).content[1]).toEqual({
      type: 'image',
      source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0=' },
    })
    expect(msg(9) as unknown as { stop_reason: string; model: string }).toMatchObject({
      stop_reason: 'end_turn',
      model: 'qwen3',
    })
  })

  it('written compactly: a grep for "role":"assistant" finds every assistant line (as hooks do)', () => {
    const text = lines.map((l) => JSON.stringify(l)).join('\n')
    expect(text.split('\n').filter((l) => l.includes('"role":"assistant"'))).toHaveLength(5)
  })
})

describe('createClaudeTranscript', () => {
  let dir: string
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'transcript-'))
  })
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true })
  })
  const read = async (path: string) =>
    (await readFile(path, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; uuid: string; parentUuid: string | null })

  it('appends what is new, and writes the file again when the conversation changed behind it', async () => {
    let messages: ChatMessage[] = conversation.slice(0, 3)
    const path = transcriptPathFor(join(dir, 'abc.jsonl'))
    expect(path).toBe(join(dir, 'abc.transcript.jsonl'))
    const transcript = createClaudeTranscript({ path, root: dir, messages: () => messages, context: ctx })
    expect(transcript.sync()).toBe(path)
    const first = await read(path)
    expect(first).toHaveLength(5)
    messages = [...messages, ...conversation.slice(3)]
    transcript.sync()
    const second = await read(path)
    expect(second).toHaveLength(10)
    expect(second.slice(0, 5)).toEqual(first)
    expect(second[5]?.parentUuid).toBe(first[4]?.uuid)
    // /clear: a new conversation.
    messages = [{ role: 'user', content: 'fresh start' }]
    transcript.sync()
    expect((await read(path)).map((l) => l.type)).toEqual(['user'])
  })

  it('never writes through a link planted at its name: a new file replaces the link, an append is refused and reported once', async () => {
    const target = join(dir, 'elsewhere.txt')
    await writeFile(target, 'untouched')
    const path = join(dir, 'abc.transcript.jsonl')
    await symlink(target, path)
    const errors: string[] = []
    let messages: ChatMessage[] = conversation.slice(0, 1)
    const transcript = createClaudeTranscript({
      path,
      root: dir,
      messages: () => messages,
      context: ctx,
      onError: (e) => errors.push(e.message),
    })
    transcript.sync()
    expect(await readFile(target, 'utf8')).toBe('untouched')
    expect(await read(path)).toHaveLength(1)
    // Planted between two hooks: the next append finds a link.
    await rm(path)
    await symlink(target, path)
    messages = conversation.slice(0, 3)
    expect(transcript.sync()).toBe(path)
    messages = conversation
    transcript.sync()
    expect(await readFile(target, 'utf8')).toBe('untouched')
    expect(errors).toHaveLength(1)
    expect(errors[0]).toContain('symbolic link')
  })
})
