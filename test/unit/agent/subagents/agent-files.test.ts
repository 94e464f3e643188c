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
const parseAs = (text: string, fallbackName: string, tools = TOOLS) =>
  parseAgentFile(text, { file: 'agents/x.md', source: 'project', tools, fallbackName })
const file = (front: string, body = 'You review code.') => `---\n${front}\n---\n${body}\n`

describe('parseAgentFile', () => {
  it('reads name, description, tools, model and max_turns; the body is the prompt', async () => {
    const { agent, problems } = await parse(
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
  ])('takes %s', async (_label, tools, expected) => {
    const { agent } = await parse(file(`description: d${tools ? `\n${tools}` : ''}`))
    expect(agent?.tools).toEqual(expected)
  })

  it('names the file after the file when there is no name; "inherit" keeps the caller\'s model', async () => {
    const { agent } = await parse(file('description: d\nmodel: inherit'))
    expect(agent?.name).toBe('x')
    expect(agent?.model).toBeUndefined()
  })

  it.each([
    ['no description', 'name: a', 'description', 'expected one line'],
    ['a bad name and a bad file name', 'name: "has space"\ndescription: d', 'name', 'expected letters'],
    ['a built-in name', 'name: explore\ndescription: d', 'name', 'is a built-in agent'],
    ['a max_turns that is not a number', 'description: d\nmax_turns: lots', 'max_turns', 'whole number'],
    ['a max_turns of 0', 'description: d\nmax_turns: 0', 'max_turns', 'at least 1'],
    ['tools that are not a list', 'description: d\ntools: 5', 'tools', 'expected a list of tool names'],
    ['only unknown tools', 'description: d\ntools: [Nope]', 'tools', 'none of the listed tools'],
    ['an empty model', 'description: d\nmodel: ""', 'model', 'expected a model id'],
    [
      'a field twice',
      'description: d\ndescription: e',
      undefined,
      'frontmatter line 3: "description" appears twice',
    ],
  ])('skips a file with %s, naming the field', async (_label, front, field, message) => {
    const { agent, problems } = await (field === 'name'
      ? parseAs(file(front), 'bad name')
      : parse(file(front)))
    expect(agent).toBeNull()
    expect(problems.at(-1)).toMatchObject({ file: 'agents/x.md', skipped: true })
    expect(problems.at(-1)?.field).toBe(field)
    expect(problems.at(-1)?.message).toContain(message)
  })

  it('skips a file without frontmatter or with an empty body, saying where', async () => {
    expect((await parse('no frontmatter')).problems[0]?.message).toMatch(/frontmatter line 1/)
    expect((await parse(file('description: d', ''))).problems[0]?.message).toMatch(/body .* is empty/)
  })

  it('loads with warnings for unknown tools, unknown fields and Claude Code model tiers', async () => {
    const { agent, problems } = await parse(
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

describe("parseAgentFile with Claude Code's leniency", () => {
  it('a name that is no agent name falls back to the file name, with a notice', async () => {
    const { agent, problems } = await parseAs(file('name: Code Reviewer\ndescription: d'), 'code-reviewer')
    expect(agent?.name).toBe('code-reviewer')
    expect(problems).toEqual([
      expect.objectContaining({
        field: 'name',
        skipped: false,
        message: expect.stringContaining('"Code Reviewer" is not an agent name'),
      }),
    ])
  })

  it.each([
    [
      'LS, BashOutput, KillShell, NotebookRead, Task',
      'tools: LS, BashOutput, KillShell, NotebookRead, Task',
      ['Glob', 'TaskOutput', 'TaskStop', 'Read', 'Agent'],
      ['Read', 'Glob', 'TaskOutput', 'TaskStop'],
      "Claude Code's LS, BashOutput, KillShell, NotebookRead and Task are Glob, TaskOutput, TaskStop, Read and Agent here",
    ],
    [
      'MultiEdit without a MultiEdit tool',
      'tools: [Read, MultiEdit]',
      ['Read', 'Edit'],
      ['Read', 'Edit'],
      "Claude Code's MultiEdit is Edit here",
    ],
    [
      'MultiEdit where the session has it',
      'tools: [Read, MultiEdit]',
      ['Read', 'MultiEdit'],
      ['Read', 'Edit', 'MultiEdit'],
      null,
    ],
    [
      "Agent(a, b): Claude Code's list of the agents it may start, commas and all",
      'tools: Read, Agent(scan-inventory, scan-verifier), Bash(git *)',
      ['Read', 'Agent', 'Bash'],
      ['Read', 'Bash'],
      null,
    ],
    [
      'WebFetch and WebSearch as they are',
      'tools: WebFetch, WebSearch',
      ['WebFetch', 'WebSearch'],
      ['WebFetch', 'WebSearch'],
      null,
    ],
  ])("maps Claude Code's tool names: %s, in one line", async (_label, tools, expected, session, notice) => {
    const { agent, problems } = await parseAs(file(`description: d\n${tools}`), 'x', session)
    expect(agent?.tools).toEqual(expected)
    expect(problems.map((p) => p.message)).toEqual(notice ? [notice] : [])
  })

  it('tools: [] is an agent without tools, as in Claude Code (a list of only unknown names is still refused)', async () => {
    const { agent, problems } = await parseAs(file('description: d\ntools: []'), 'x')
    expect(agent?.tools).toEqual([])
    expect(problems).toEqual([])
  })

  it('reads an unquoted multi-line description with <example> blocks as Claude Code does', async () => {
    const text = file(
      'name: agent-creator\ndescription: Use this agent when asked. Examples:\n\n<example>\nContext: x\nuser: "Create an agent"\nassistant: "I will."\n</example>\nmodel: sonnet\ncolor: magenta\ntools: ["Write", "Read"]',
    )
    const { agent, problems } = await parse(text)
    expect(agent).toMatchObject({
      name: 'agent-creator',
      description:
        'Use this agent when asked. Examples: <example> Context: x user: "Create an agent" assistant: "I will." </example>',
      tools: ['Write', 'Read'],
    })
    expect(problems.map((p) => [p.field, p.skipped, p.message.slice(0, 34)])).toEqual([
      ['model', false, '"sonnet" is a Claude Code model ti'],
    ])
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

  it("reads an agent's instructions from its file when it runs, as the file is then", async () => {
    dir = await mkdtemp(join(tmpdir(), 'agents-'))
    await writeFile(join(dir, 'rev.md'), file('description: Reviews', 'Old instructions.'))
    const load = () =>
      loadAgentDir({
        dir,
        source: 'user',
        label: (p) => p.slice(dir.length + 1),
        tools: TOOLS,
        read: testReader(),
      })
    const [agent] = (await load()).agents
    expect(Object.keys(agent ?? {})).not.toContain('prompt')
    await writeFile(join(dir, 'rev.md'), file('description: Reviews', 'New instructions.'))
    expect(await agent?.instructions()).toBe('New instructions.')
    await writeFile(join(dir, 'rev.md'), file('description: Reviews\ntools: Bash', 'New instructions.'))
    await expect(agent?.instructions()).rejects.toThrow(
      'rev.md: its name, tools or model changed since the session started; restart the session to use them',
    )
    await rm(join(dir, 'rev.md'))
    await expect(agent?.instructions()).rejects.toThrow(
      'rev.md: cannot read it: it is gone (it was read when the session started)',
    )
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
