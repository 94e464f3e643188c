/**
 * `agent-tui mcp serve --expose-tools` end to end: the built CLI's built-in tools called by the MCP SDK's
 * client — what they offer, a client doing its work, and the permission ceiling. No model is involved:
 * every call goes straight into the session's tool-call pipeline. docs/mcp.md#the-built-in-tools
 * (A hostile client: mcp-serve-tools-hostile.test.ts.)
 */
import { existsSync } from 'node:fs'
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { projectKey } from '../../source/config/app-paths.ts'
import { setupE2eEnv } from '../support/e2e-env.ts'
import { toolsClients, use } from '../support/mcp-serve-clients.ts'
import { isGone, readPidFile, waitFor } from '../unit/tasks/helpers.ts'

const env = setupE2eEnv()
const { connect, seen } = toolsClients(env)
const ws = (...parts: string[]) => join(env.box.workspace, ...parts)

describe('agent-tui mcp serve --expose-tools: what it offers', () => {
  it("lists the built-in tools with their own schemas and descriptions, and not the session's UI tools", async () => {
    const { client } = await connect()
    const { tools } = await client.listTools()
    const names = tools.map((tool) => tool.name)
    expect(names[0]).toBe('run_task')
    for (const name of [
      'apply_patch',
      'Bash',
      'Read',
      'Write',
      'Edit',
      'MultiEdit',
      'Glob',
      'Grep',
      'DeleteFile',
      'TaskOutput',
    ])
      expect(names).toContain(name)
    for (const name of [
      'AskUserQuestion',
      'TodoWrite',
      'ExitPlanMode',
      'Config',
      'Agent',
      'Skill',
      'SaveMemory',
    ])
      expect(names).not.toContain(name)
    const read = tools.find((tool) => tool.name === 'Read')!
    expect(read.inputSchema.required).toEqual(['file_path'])
    expect(Object.keys(read.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(['file_path', 'offset', 'limit']),
    )
    expect(read.description).toContain('Reads a file')
    expect(read.annotations).toMatchObject({ readOnlyHint: true })
    const edit = tools.find((tool) => tool.name === 'Edit')!
    expect(edit.inputSchema.required).toEqual(
      expect.arrayContaining(['file_path', 'old_string', 'new_string']),
    )
    expect(edit.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true })
    // The server's folder is fixed: no tool takes a folder to work in.
    for (const tool of tools.slice(1))
      expect(Object.keys(tool.inputSchema.properties ?? {})).not.toContain('cwd')
  })

  it('honours --tools: only the tools named are listed', async () => {
    const { client } = await connect(['--tools', 'Read,Grep'])
    const { tools } = await client.listTools()
    expect(tools.map((tool) => tool.name)).toEqual(['run_task', 'Read', 'Grep'])
  })

  it('a bare deny rule takes its tool out of the list, and a call to it is unknown', async () => {
    const { client } = await connect(['--disallowed-tools', 'Bash'])
    const { tools } = await client.listTools()
    expect(tools.map((tool) => tool.name)).not.toContain('Bash')
    expect(tools.map((tool) => tool.name)).toContain('Read')
    // Not a tool of this server at all: the protocol's own error.
    await expect(client.callTool({ name: 'Bash', arguments: { command: 'echo hi' } })).rejects.toThrow(
      'Tool Bash not found',
    )
  })
})

describe('agent-tui mcp serve --expose-tools: a client that does its work', () => {
  it('reads, greps, and edits after a read (auto ceiling); no model is asked', async () => {
    await writeFile(ws('notes.txt'), 'the secret word is plover\nsecond line\n')
    const { client } = await connect(['--max-mode', 'auto'])
    const read = await use(client, 'Read', { file_path: 'notes.txt' })
    expect(read.isError).toBe(false)
    expect(read.text).toContain('the secret word is plover')
    const grep = await use(client, 'Grep', { pattern: 'plover', output_mode: 'content' })
    expect(grep.isError).toBe(false)
    expect(grep.text).toContain('notes.txt')
    const edit = await use(client, 'Edit', {
      file_path: 'notes.txt',
      old_string: 'plover',
      new_string: 'dotterel',
    })
    expect(edit.isError, edit.text).toBe(false)
    expect(await readFile(ws('notes.txt'), 'utf8')).toBe('the secret word is dotterel\nsecond line\n')
    expect(env.server.requests).toHaveLength(0)
    // No turn, no checkpoint: the workspace is not copied into a shadow repository for nothing.
    expect(existsSync(join(env.box.home, '.local', 'state', 'agent-tui', 'checkpoints'))).toBe(false)
  })

  it('applies a patch in the apply_patch format, whatever model the server names', async () => {
    await writeFile(ws('a.txt'), 'one\ntwo\n')
    const { client } = await connect(['--max-mode', 'auto'])
    await use(client, 'Read', { file_path: 'a.txt' })
    const patch = [
      '*** Begin Patch',
      '*** Update File: a.txt',
      '@@',
      ' one',
      '-two',
      '+three',
      '*** Add File: b.txt',
      '+new file',
      '*** End Patch',
    ].join('\n')
    const applied = await use(client, 'apply_patch', { input: patch })
    expect(applied.isError, applied.text).toBe(false)
    expect(await readFile(ws('a.txt'), 'utf8')).toBe('one\nthree\n')
    expect(await readFile(ws('b.txt'), 'utf8')).toBe('new file\n')
  })

  it("keeps Edit's read-first and staleness rules from one call to the next", async () => {
    await writeFile(ws('a.txt'), 'alpha\n')
    const { client } = await connect(['--max-mode', 'auto'])
    const unread = await use(client, 'Edit', { file_path: 'a.txt', old_string: 'alpha', new_string: 'beta' })
    expect(unread.isError).toBe(true)
    expect(unread.text).toMatch(/Read/)
    expect(await readFile(ws('a.txt'), 'utf8')).toBe('alpha\n')
    await use(client, 'Read', { file_path: 'a.txt' })
    // Changed behind the server's back after the read: the edit must see it and refuse.
    await writeFile(ws('a.txt'), 'alpha changed elsewhere\n')
    const stale = await use(client, 'Edit', { file_path: 'a.txt', old_string: 'alpha', new_string: 'beta' })
    expect(stale.isError).toBe(true)
    expect(stale.text).toMatch(/modified|changed/)
    expect(await readFile(ws('a.txt'), 'utf8')).toBe('alpha changed elsewhere\n')
  })

  it('a background job started by one call is read by the next, and stopped by a third', async () => {
    const { client } = await connect(['--allowed-tools', 'Bash(echo *),Bash(sleep *),TaskStop'])
    const started = await use(client, 'Bash', { command: 'echo started; sleep 300', run_in_background: true })
    expect(started.isError, started.text).toBe(false)
    const id = /background task (\S+?)\b/.exec(started.text)?.[1]
    expect(id, started.text).toBeDefined()
    // Read until its first line is there (each read returns what came since the last).
    let seen = ''
    await waitFor(async () => {
      seen += (await use(client, 'TaskOutput', { task_id: id, block: false })).text
      return seen.includes('started')
    }, "the job's output")
    const stop = await use(client, 'TaskStop', { task_id: id })
    expect(stop.isError, stop.text).toBe(false)
    const after = await use(client, 'TaskOutput', { task_id: id, block: false })
    expect(after.text).toMatch(/stopped|killed|exit/i)
  })

  it('a background job goes with the server when its client closes', async () => {
    const { client } = await connect(['--max-mode', 'dangerous'])
    const started = await use(client, 'Bash', {
      command: 'echo $$ > bg.pid; exec sleep 300',
      run_in_background: true,
    })
    expect(started.isError, started.text).toBe(false)
    const pid = await readPidFile(ws('bg.pid'))
    seen.push(pid)
    const sessions = join(
      env.box.home,
      '.local',
      'state',
      'agent-tui',
      'sessions',
      projectKey(env.box.workspace),
    )
    expect(await readdir(sessions)).toHaveLength(1)
    await client.close()
    await waitFor(() => isGone(pid), 'the background job to be killed')
    // The tools' session held no conversation: it leaves no entry for the /resume picker.
    await waitFor(async () => (await readdir(sessions)).length === 0, 'the session log to be removed')
  })

  it('answers calls sent at once, each with its own result', async () => {
    await writeFile(ws('one.txt'), 'first file\n')
    await writeFile(ws('two.txt'), 'second file\n')
    const { client } = await connect()
    const [one, two, list] = await Promise.all([
      use(client, 'Read', { file_path: 'one.txt' }),
      use(client, 'Read', { file_path: 'two.txt' }),
      use(client, 'Glob', { pattern: '*.txt' }),
    ])
    expect(one.text).toContain('first file')
    expect(two.text).toContain('second file')
    expect(list.text).toContain('one.txt')
    expect(list.text).toContain('two.txt')
  })

  it('gives a bad argument back as a tool error naming the field, and stays up', async () => {
    const { client } = await connect()
    const bad = await use(client, 'Read', { path: 'x' })
    expect(bad.isError).toBe(true)
    expect(bad.text).toContain('file_path')
    const missing = await use(client, 'Read', { file_path: 'no-such-file.txt' })
    expect(missing.isError).toBe(true)
    expect(missing.text).toMatch(/not found|no such|does not exist/i)
    await writeFile(ws('ok.txt'), 'fine\n')
    expect((await use(client, 'Read', { file_path: 'ok.txt' })).text).toContain('fine')
  })

  it("bounds a command's output as for the model: the rest is in a file the client can Read", async () => {
    const { client } = await connect(['--allowed-tools', 'Bash(seq *)'])
    const big = await use(client, 'Bash', { command: 'seq 1 200000' })
    expect(big.isError).toBe(false)
    expect(big.text.length).toBeLessThan(40_000)
    const saved = /(\/\S+\.(?:log|txt))/.exec(big.text)?.[1]
    expect(saved, big.text.slice(-600)).toBeDefined()
    const tail = await use(client, 'Read', { file_path: saved!, offset: 199_999, limit: 2 })
    expect(tail.isError, tail.text).toBe(false)
    expect(tail.text).toContain('200000')
  })
})

describe('agent-tui mcp serve --expose-tools: the ceiling', () => {
  it('in ci (the default) refuses a write and a command, naming the mode and how to allow them', async () => {
    const { client, stderr } = await connect()
    const write = await use(client, 'Write', { file_path: 'new.txt', content: 'x' })
    expect(write.isError).toBe(true)
    expect(write.text).toContain('ci mode denies edits')
    expect(write.text).toContain(
      'this server judges calls in ci mode (--max-mode ci); to allow this one, start agent-tui mcp serve with --allowed-tools "Edit(new.txt)", or a looser --max-mode',
    )
    expect(existsSync(ws('new.txt'))).toBe(false)
    const bash = await use(client, 'Bash', { command: 'touch made.txt' })
    expect(bash.isError).toBe(true)
    expect(bash.text).toContain('--allowed-tools "Bash(touch')
    expect(existsSync(ws('made.txt'))).toBe(false)
    expect(stderr()).toContain('Write')
  })

  it('runs what --allowed-tools allows in ci (the rule a refusal named), and nothing beside it', async () => {
    const { client } = await connect(['--allowed-tools', 'Bash(touch made.txt),Edit(new.txt)'])
    expect((await use(client, 'Bash', { command: 'touch made.txt' })).isError).toBe(false)
    expect(existsSync(ws('made.txt'))).toBe(true)
    expect((await use(client, 'Write', { file_path: 'new.txt', content: 'x' })).isError).toBe(false)
    expect(await readFile(ws('new.txt'), 'utf8')).toBe('x')
    const other = await use(client, 'Bash', { command: 'touch made.txt other.txt' })
    expect(other.isError).toBe(true)
    expect(existsSync(ws('other.txt'))).toBe(false)
  })

  it('in safe, runs read-only commands and refuses an edit; --add-dir widens the read boundary', async () => {
    await mkdir(join(env.box.root, 'docs'))
    await writeFile(join(env.box.root, 'docs', 'guide.md'), 'the guide\n')
    await writeFile(join(env.box.root, 'private.txt'), 'not for you\n')
    await writeFile(ws('a.txt'), 'alpha\n')
    const { client } = await connect(['--max-mode', 'safe', '--add-dir', join(env.box.root, 'docs')])
    expect((await use(client, 'Bash', { command: 'ls' })).text).toContain('a.txt')
    await use(client, 'Read', { file_path: 'a.txt' })
    const edit = await use(client, 'Edit', { file_path: 'a.txt', old_string: 'alpha', new_string: 'beta' })
    expect(edit.isError).toBe(true)
    expect(edit.text).toContain('this server judges calls in safe mode (--max-mode safe)')
    expect(await readFile(ws('a.txt'), 'utf8')).toBe('alpha\n')
    expect((await use(client, 'Read', { file_path: join(env.box.root, 'docs', 'guide.md') })).text).toContain(
      'the guide',
    )
    const outside = await use(client, 'Read', { file_path: join(env.box.root, 'private.txt') })
    expect(outside.isError).toBe(true)
    expect(outside.text).not.toContain('not for you')
  })

  it("does not apply an untrusted folder's allow rules", async () => {
    await mkdir(ws('.agent-tui'))
    await writeFile(
      ws('.agent-tui', 'settings.json'),
      JSON.stringify({ permissions: { allow: ['Bash(touch *)'] } }),
    )
    const { client, stderr } = await connect()
    const bash = await use(client, 'Bash', { command: 'touch made.txt' })
    expect(bash.isError).toBe(true)
    expect(existsSync(ws('made.txt'))).toBe(false)
    expect(stderr()).toContain('is not a trusted folder, so what its repository brings is ignored')
  })

  it("the user's PreToolUse hook holds: a call it denies does not run", async () => {
    const settings = join(env.box.env.XDG_CONFIG_HOME ?? '', 'agent-tui')
    await mkdir(settings, { recursive: true })
    await writeFile(
      join(settings, 'settings.json'),
      JSON.stringify({
        hooks: {
          PreToolUse: [
            { matcher: 'Read', hooks: [{ type: 'command', command: 'echo "no reading here" >&2; exit 2' }] },
          ],
        },
      }),
    )
    await writeFile(ws('notes.txt'), 'guarded\n')
    const { client } = await connect()
    const read = await use(client, 'Read', { file_path: 'notes.txt' })
    expect(read.isError).toBe(true)
    expect(read.text).toContain('PreToolUse hook')
    expect(read.text).toContain('no reading here')
    expect(read.text).not.toContain('guarded')
  })
})
