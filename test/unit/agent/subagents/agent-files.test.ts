import { execFileSync } from 'node:child_process'
import { chmod, mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { loadAgentDir, parseAgentFile } from '../../../../source/agent/subagents/agent-files.js'
import { testReader } from '../../../support/instruction-reader.ts'

const TOOLS = ['Bash', 'Read', 'Write', 'Edit', 'Glob', 'Grep', 'WebFetch']
const parse = (text: string) =>
  parseAgentFile(text, { file: 'agents/x.md', source: 'project', tools: TOOLS, fallbackName: 'x' })
const file = (front: string, body = 'You review code.') => `---\n${front}\n---\n${body}\n`

describe('parseAgentFile', () => {
  it('reads name, description, tools, model and max_turns; the body is the prompt', () => {
    const { agent, problems } = parse(
      file(
        'name: reviewer\ndescription: Reviews diffs\ntools: [Read, Grep]\nmodel: small-model\nmax_turns: 8',
      ),
    )
    expect(problems).toEqual([])
    expect(agent).toEqual({
      name: 'reviewer',
      description: 'Reviews diffs',
      source: 'project',
      file: 'agents/x.md',
      prompt: 'You review code.',
      tools: ['Read', 'Grep'],
      model: 'small-model',
      maxTurns: 8,
      readOnly: false,
    })
  })

  it.each([
    ['a comma-separated tools string', 'tools: Read, Grep, Task', ['Read', 'Grep', 'Agent']],
    ["Claude Code's per-command form", 'tools: [Bash(git *), Read]', ['Bash', 'Read']],
    ['no tools (every tool but Agent)', '', null],
    ['"*" (every tool but Agent)', 'tools: "*"', null],
  ])('takes %s', (_label, tools, expected) => {
    const { agent } = parse(file(`description: d${tools ? `\n${tools}` : ''}`))
    expect(agent?.tools).toEqual(expected)
  })

  it('names the file after the file when there is no name; "inherit" keeps the caller\'s model', () => {
    const { agent } = parse(file('description: d\nmodel: inherit'))
    expect(agent?.name).toBe('x')
    expect(agent?.model).toBeUndefined()
  })

  it.each([
    ['no description', 'name: a', 'description', 'expected one line'],
    ['a bad name', 'name: "has space"\ndescription: d', 'name', 'expected letters'],
    ['a built-in name', 'name: explore\ndescription: d', 'name', 'is a built-in agent'],
    ['a max_turns that is not a number', 'description: d\nmax_turns: lots', 'max_turns', 'whole number'],
    ['a max_turns of 0', 'description: d\nmax_turns: 0', 'max_turns', 'at least 1'],
    ['tools that are not a list', 'description: d\ntools: 5', 'tools', 'expected a list of tool names'],
    ['only unknown tools', 'description: d\ntools: [Nope]', 'tools', 'none of the listed tools'],
    ['an empty model', 'description: d\nmodel: ""', 'model', 'expected a model id'],
    [
      'an unreadable value',
      'description: d\ntools: [Read',
      'tools',
      'frontmatter line 3: an inline list must end',
    ],
  ])('skips a file with %s, naming the field', (_label, front, field, message) => {
    const { agent, problems } = parse(file(front))
    expect(agent).toBeNull()
    expect(problems.at(-1)).toMatchObject({ file: 'agents/x.md', field, skipped: true })
    expect(problems.at(-1)?.message).toContain(message)
  })

  it('skips a file without frontmatter or with an empty body, saying where', () => {
    expect(parse('no frontmatter').problems[0]?.message).toMatch(/frontmatter line 1/)
    expect(parse(file('description: d', '')).problems[0]?.message).toMatch(/body .* is empty/)
  })

  it('loads with warnings for unknown tools, unknown fields and Claude Code model tiers', () => {
    const { agent, problems } = parse(
      file('description: d\ntools: [Read, Frobnicate]\nmodel: sonnet\ncolour: red\ncolor: blue'),
    )
    expect(agent?.tools).toEqual(['Read'])
    expect(agent?.model).toBeUndefined()
    expect(problems.map((p) => [p.field, p.skipped])).toEqual([
      ['colour', false],
      ['tools', false],
      ['model', false],
    ])
    expect(problems[1]?.message).toContain('no tool named "Frobnicate"')
  })
})

describe('loadAgentDir', () => {
  let dir = ''
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  it('reads the .md files by name, reports the bad ones and skips other files', async () => {
    dir = await mkdtemp(join(tmpdir(), 'agents-'))
    await writeFile(join(dir, 'b.md'), file('description: second'))
    await writeFile(join(dir, 'a.md'), file('description: first'))
    await writeFile(join(dir, 'c.md'), 'not an agent')
    await writeFile(join(dir, 'notes.txt'), 'ignored')
    await mkdir(join(dir, 'sub.md'))
    const loaded = await loadAgentDir({
      dir,
      source: 'user',
      label: (p) => p.slice(dir.length + 1),
      tools: TOOLS,
      read: testReader(),
    })
    expect(loaded.agents.map((a) => [a.name, a.source])).toEqual([
      ['a', 'user'],
      ['b', 'user'],
    ])
    expect(loaded.problems).toEqual([
      { file: 'c.md', message: expect.stringContaining('frontmatter'), skipped: true },
    ])
  })

  it('treats a missing folder as no agents, and an unreadable file as a problem', async () => {
    expect(
      await loadAgentDir({
        dir: '/nonexistent/agents',
        source: 'user',
        label: (p) => p,
        tools: TOOLS,
        read: testReader(),
      }),
    ).toEqual({
      agents: [],
      problems: [],
    })
    if (process.getuid?.() === 0) return
    dir = await mkdtemp(join(tmpdir(), 'agents-'))
    await writeFile(join(dir, 'locked.md'), file('description: d'))
    await chmod(join(dir, 'locked.md'), 0)
    const loaded = await loadAgentDir({
      dir,
      source: 'user',
      label: (p) => p,
      tools: TOOLS,
      read: testReader(),
    })
    expect(loaded.problems[0]?.message).toMatch(/cannot be read \(EACCES\)/)
  })

  it('reads agent files through the read boundary: a FIFO does not hang the start, a link out is left out', async () => {
    dir = await realpath(await mkdtemp(join(tmpdir(), 'agents-')))
    await mkdir(join(dir, 'agents'))
    // A FIFO itself is not listed; a link to one is, and opening it for reading used to block.
    execFileSync('mkfifo', [join(dir, 'fifo')])
    await symlink(join(dir, 'fifo'), join(dir, 'agents', 'pipe.md'))
    await symlink('/proc/self/environ', join(dir, 'agents', 'env.md'))
    await writeFile(join(dir, 'agents', 'ok.md'), file('description: fine'))
    const loaded = await loadAgentDir({
      dir: join(dir, 'agents'),
      source: 'project',
      label: (p) => p.slice(dir.length + 1),
      tools: TOOLS,
      read: testReader(dir),
    })
    expect(loaded.agents.map((a) => a.name)).toEqual(['ok'])
    expect(loaded.problems).toEqual([
      {
        file: 'agents/env.md',
        message: expect.stringMatching(/^left out: it resolves to \/proc\//),
        skipped: true,
      },
      { file: 'agents/pipe.md', message: expect.stringMatching(/^left out: .*FIFO/), skipped: true },
    ])
  })
})
