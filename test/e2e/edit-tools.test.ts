/**
 * apply_patch, MultiEdit, DeleteFile and SaveMemory against the built CLI and the scripted server: called
 * by a scripted model headless in safe mode with --allowed-tools (they run) and in ci mode (denied, nothing
 * changes); apply_patch offered to a gpt-4.1 and a gpt-5 profile and not to a qwen one; a later session
 * reading the saved memory; --rewind-to bringing back a deleted file and an apply_patch's files.
 */
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { setupE2eEnv } from '../support/e2e-env.ts'

const env = setupE2eEnv()
const { cli } = env

type Trace = { status: string; tool_calls: Array<{ name: string; status: string }> }
type Msg = { role: string; content: string }

const PATCH = [
  '*** Begin Patch',
  '*** Update File: a.txt',
  '@@',
  ' alpha',
  '-beta',
  '+BETA',
  '*** Add File: docs/new.md',
  '+# New',
  '*** End Patch',
].join('\n')

const ORIGINAL = { 'a.txt': 'alpha\nbeta\n', 'b.txt': 'one two\n', 'd.txt': 'doomed\n' }

async function files(): Promise<Record<string, string | null>> {
  const out: Record<string, string | null> = {}
  for (const name of ['a.txt', 'b.txt', 'd.txt', 'docs/new.md', '.agent-tui/memory.md']) {
    out[name] = await readFile(join(env.box.workspace, name), 'utf8').catch(() => null)
  }
  return out
}

/** A turn that reads the files, then calls each of the four tools once. */
function scriptTurn(): void {
  env.server.enqueue(
    {
      toolCalls: [
        { name: 'Read', arguments: { file_path: 'a.txt' } },
        { name: 'Read', arguments: { file_path: 'b.txt' } },
        { name: 'Read', arguments: { file_path: 'd.txt' } },
      ],
    },
    { toolCalls: [{ name: 'apply_patch', arguments: { input: PATCH } }] },
    {
      toolCalls: [
        {
          name: 'MultiEdit',
          arguments: {
            file_path: 'b.txt',
            edits: [
              { old_string: 'one', new_string: '1' },
              { old_string: 'two', new_string: '2' },
            ],
          },
        },
      ],
    },
    { toolCalls: [{ name: 'DeleteFile', arguments: { file_path: 'd.txt' } }] },
    { toolCalls: [{ name: 'SaveMemory', arguments: { fact: 'b.txt counts in digits' } }] },
    { text: 'All four done.' },
  )
}

async function seed(): Promise<void> {
  for (const [name, text] of Object.entries(ORIGINAL)) await writeFile(join(env.box.workspace, name), text)
}

const toolNames = (i: number) =>
  ((env.server.requests[i]?.body.tools ?? []) as Array<{ function: { name: string } }>).map(
    (t) => t.function.name,
  )

describe('the file tools end to end (headless)', () => {
  it('safe mode with --allowed-tools runs all four; ci mode without a rule denies them and changes nothing', async () => {
    await seed()
    scriptTurn()
    const denied = await cli([
      '-p',
      'change files',
      '--model',
      'gpt-4.1',
      '--mode',
      'ci',
      '--output-format',
      'json',
    ])
    expect(denied.code).toBe(0)
    const deniedTrace = JSON.parse(denied.stdout) as Trace
    expect(deniedTrace.tool_calls.map((c) => [c.name, c.status])).toEqual([
      ['Read', 'done'],
      ['Read', 'done'],
      ['Read', 'done'],
      ['apply_patch', 'denied'],
      ['MultiEdit', 'denied'],
      ['DeleteFile', 'denied'],
      ['SaveMemory', 'denied'],
    ])
    const results = ((env.server.requests.at(-1)?.body.messages ?? []) as Msg[]).filter(
      (m) => m.role === 'tool',
    )
    expect(results[3]?.content).toContain('ci mode denies edits without an allow rule')
    expect(results[6]?.content).toContain(
      'ci mode denies saving a memory later sessions read without an allow rule',
    )
    expect(await files()).toEqual({ ...ORIGINAL, 'docs/new.md': null, '.agent-tui/memory.md': null })

    scriptTurn()
    const allowed = await cli([
      '-p',
      'change files',
      '--model',
      'gpt-4.1',
      '--mode',
      'safe',
      '--allowed-tools',
      'apply_patch,MultiEdit,DeleteFile,SaveMemory',
      '--output-format',
      'json',
    ])
    expect(allowed.stderr).toBe('')
    expect(allowed.code).toBe(0)
    const trace = JSON.parse(allowed.stdout) as Trace
    expect(trace.tool_calls.map((c) => c.status)).toEqual([
      'done',
      'done',
      'done',
      'done',
      'done',
      'done',
      'done',
    ])
    const today = new Date().toISOString().slice(0, 10)
    expect(await files()).toEqual({
      'a.txt': 'alpha\nBETA\n',
      'b.txt': '1 2\n',
      'd.txt': null,
      'docs/new.md': '# New\n',
      '.agent-tui/memory.md': `# Project memory\n\n- ${today}: b.txt counts in digits\n`,
    })

    // A later session reads the saved fact in its system prompt.
    env.server.enqueue({ text: 'ok' })
    const later = await cli(['-p', 'hello'])
    expect(later.code).toBe(0)
    const system = ((env.server.requests.at(-1)?.body.messages ?? []) as Msg[])[0]
    expect(system?.role).toBe('system')
    expect(system?.content).toContain(`- ${today}: b.txt counts in digits`)
  })

  it('offers apply_patch beside Edit to gpt-4.1, in place of Edit and Write to gpt-5, and not to qwen', async () => {
    env.server.enqueue({ text: 'a' }, { text: 'b' }, { text: 'c' })
    for (const model of ['gpt-4.1', 'gpt-5', 'qwen2.5-coder-32b']) {
      const r = await cli(['-p', 'hi', '--model', model])
      expect(r.code).toBe(0)
    }
    const [gpt41, gpt5, qwen] = [toolNames(0), toolNames(1), toolNames(2)]
    expect(gpt41).toEqual(expect.arrayContaining(['apply_patch', 'Edit', 'Write', 'MultiEdit', 'DeleteFile']))
    expect(gpt5).toContain('apply_patch')
    expect(gpt5.filter((n) => ['Edit', 'Write', 'MultiEdit'].includes(n))).toEqual([])
    expect(qwen).not.toContain('apply_patch')
    expect(qwen).toEqual(expect.arrayContaining(['Edit', 'Write']))
    // At qwen's 32k window the rare tools (MultiEdit, DeleteFile, SaveMemory) wait behind ToolSearch.
    expect(qwen).toContain('ToolSearch')
    const search = (
      (env.server.requests[2]?.body.tools ?? []) as Array<{ function: { name: string; description: string } }>
    ).find((t) => t.function.name === 'ToolSearch')
    expect(search?.function.description).toMatch(/^- MultiEdit\b/m)
    expect(search?.function.description).toMatch(/^- DeleteFile\b/m)
    expect(search?.function.description).toMatch(/^- SaveMemory\b/m)
  })

  it('--rewind-to brings back a deleted file and the files of an apply_patch, and takes a saved memory back', async () => {
    await seed()
    env.server.enqueue(
      {
        toolCalls: [
          { name: 'Read', arguments: { file_path: 'a.txt' } },
          { name: 'Read', arguments: { file_path: 'd.txt' } },
        ],
      },
      { toolCalls: [{ name: 'apply_patch', arguments: { input: PATCH } }] },
      { toolCalls: [{ name: 'DeleteFile', arguments: { file_path: 'd.txt' } }] },
      { toolCalls: [{ name: 'SaveMemory', arguments: { fact: 'd.txt is gone' } }] },
      { text: 'done' },
    )
    const r = await cli([
      '-p',
      'patch and delete',
      '--model',
      'gpt-4.1',
      '--mode',
      'auto',
      '--allowed-tools',
      'SaveMemory',
    ])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect((await files())['d.txt']).toBeNull()
    expect((await files())['docs/new.md']).toBe('# New\n')
    expect((await files())['.agent-tui/memory.md']).toContain('d.txt is gone')

    const list = await cli(['--continue', '--rewind-to', 'list'])
    const listed = /“patch and delete” {2}files: (.+)$/m.exec(list.stdout)?.[1]?.split(', ')
    expect(listed?.sort()).toEqual(['.agent-tui/memory.md', 'a.txt', 'd.txt', 'docs/new.md'])
    const rewound = await cli(['--continue', '--rewind-to', '1'])
    expect(rewound.stderr).toBe('')
    expect(rewound.code).toBe(0)
    expect(rewound.stdout).toContain('  restored  a.txt')
    expect(rewound.stdout).toContain('  restored  d.txt')
    expect(rewound.stdout).toContain('  deleted   docs/new.md')
    expect(rewound.stdout).toContain('  deleted   .agent-tui/memory.md')
    expect(await files()).toEqual({ ...ORIGINAL, 'docs/new.md': null, '.agent-tui/memory.md': null })
  })
})
