/**
 * `agent-tui mcp serve --expose-tools` against a hostile client: paths out of the workspace (`../`, absolute,
 * symlinks), protected files, denied programs inside wrappers, a cancelled call, and the sandbox. Every
 * refusal comes from the same pipeline `-p` uses. docs/mcp.md#the-built-in-tools
 */
import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { setupE2eEnv } from '../support/e2e-env.ts'
import { toolsClients, use } from '../support/mcp-serve-clients.ts'
import { osSandbox } from '../support/os-sandbox.ts'
import { isGone, readPidFile, waitFor } from '../unit/tasks/helpers.ts'

const env = setupE2eEnv()
const { connect, seen } = toolsClients(env)
const ws = (...parts: string[]) => join(env.box.workspace, ...parts)

describe('agent-tui mcp serve --expose-tools: a hostile client', () => {
  it('cannot read outside the workspace: by ../, by an absolute path, or through a symlink', async () => {
    await writeFile(join(env.box.root, 'outside.txt'), 'the outside secret\n')
    await symlink(join(env.box.root, 'outside.txt'), ws('innocent.txt'))
    await symlink(env.box.root, ws('up'))
    const { client } = await connect(['--max-mode', 'auto'])
    for (const file_path of [
      '../outside.txt',
      join(env.box.root, 'outside.txt'),
      'innocent.txt',
      'up/outside.txt',
    ]) {
      const read = await use(client, 'Read', { file_path })
      expect(read.isError, file_path).toBe(true)
      expect(read.text, file_path).not.toContain('the outside secret')
      expect(read.text, file_path).toMatch(/outside the workspace|no user is available/)
    }
    const grep = await use(client, 'Grep', { pattern: 'outside secret', path: '..' })
    expect(grep.isError).toBe(true)
    expect(grep.text).not.toContain('outside.txt:')
    const cat = await use(client, 'Bash', { command: 'cat innocent.txt' })
    expect(cat.isError).toBe(true)
    expect(cat.text).not.toContain('the outside secret')
  })

  it('cannot write outside the workspace through a symlinked folder', async () => {
    await mkdir(join(env.box.root, 'elsewhere'))
    await symlink(join(env.box.root, 'elsewhere'), ws('linked'))
    const { client } = await connect(['--max-mode', 'auto'])
    const write = await use(client, 'Write', { file_path: 'linked/planted.txt', content: 'x' })
    expect(write.isError).toBe(true)
    expect(existsSync(join(env.box.root, 'elsewhere', 'planted.txt'))).toBe(false)
  })

  it('cannot write .git/hooks, .claude/settings.json or .agent-tui/settings.json, even in dangerous', async () => {
    execFileSync('git', ['init', '-q'], { cwd: env.box.workspace })
    const { client } = await connect(['--max-mode', 'auto'])
    for (const file_path of ['.git/hooks/pre-commit', '.claude/settings.json', '.agent-tui/settings.json']) {
      const write = await use(client, 'Write', { file_path, content: '#!/bin/sh\ntouch pwned\n' })
      expect(write.isError, file_path).toBe(true)
      expect(write.text, file_path).toContain('(agent-tui mcp serve has none)')
      expect(existsSync(ws(file_path)), file_path).toBe(false)
    }
    const shell = await use(client, 'Bash', { command: 'echo "touch pwned" > .git/hooks/post-checkout' })
    expect(shell.isError).toBe(true)
    expect(existsSync(ws('.git', 'hooks', 'post-checkout'))).toBe(false)
    await client.close()
    const loose = await connect(['--max-mode', 'dangerous'])
    const hook = await use(loose.client, 'Write', { file_path: '.git/hooks/pre-commit', content: 'x' })
    expect(hook.isError).toBe(true)
    expect(existsSync(ws('.git', 'hooks', 'pre-commit'))).toBe(false)
  })

  it('cannot patch its way out: a file outside or a hook in a patch fails the whole patch', async () => {
    execFileSync('git', ['init', '-q'], { cwd: env.box.workspace })
    const { client } = await connect(['--max-mode', 'auto'])
    for (const path of ['../escaped.txt', '.git/hooks/pre-commit', '.claude/settings.json']) {
      const patch = [
        '*** Begin Patch',
        '*** Add File: ok.txt',
        '+fine',
        `*** Add File: ${path}`,
        '+x',
        '*** End Patch',
      ]
      const result = await use(client, 'apply_patch', { input: patch.join('\n') })
      expect(result.isError, path).toBe(true)
      expect(existsSync(ws(path)), path).toBe(false)
      // All of a patch or none of it.
      expect(existsSync(ws('ok.txt')), path).toBe(false)
    }
  })

  it("cannot read outside through a repository's symlinks with a glob or a link-following search (safe)", async () => {
    await mkdir(join(env.box.home, '.ssh'))
    await writeFile(join(env.box.home, '.ssh', 'id_rsa'), 'PRIVATE KEY MATERIAL\n')
    await writeFile(join(env.box.home, 'diary.txt'), 'PRIVATE diary\n')
    // What a cloned repository may hold: links out of it.
    await symlink(join(env.box.home, '.ssh', 'id_rsa'), ws('notes.txt'))
    await symlink(env.box.home, ws('homelink'))
    await mkdir(ws('a'))
    await mkdir(ws('b'))
    await symlink(join(env.box.home, 'diary.txt'), ws('a', 'x'))
    await writeFile(ws('b', 'x'), 'other\n')
    const { client } = await connect(['--max-mode', 'safe'])
    for (const command of [
      'cat *.txt',
      'head n*',
      'grep PRIVATE *',
      'cat h*/diary.txt',
      'cat ./*/diary.txt',
      'grep -R PRIVATE',
      'find -L . -name "id_*"',
      'diff -r a b',
    ]) {
      const bash = await use(client, 'Bash', { command })
      expect(bash.isError, command).toBe(true)
      expect(bash.text, command).toContain('no user is available')
      expect(bash.text, command).not.toContain('PRIVATE KEY MATERIAL')
      expect(bash.text, command).not.toContain('PRIVATE diary')
    }
    // Named, the link was always judged where it leads; a glob of files that stay inside still runs.
    expect((await use(client, 'Bash', { command: 'cat notes.txt' })).isError).toBe(true)
    await writeFile(ws('a.md'), 'plain\n')
    expect((await use(client, 'Bash', { command: 'cat *.md' })).text).toContain('plain')
  })

  it('cannot run a denied program inside a wrapper, even in dangerous', async () => {
    await writeFile(ws('victim.txt'), 'keep me\n')
    const { client } = await connect(['--max-mode', 'dangerous', '--disallowed-tools', 'Bash(rm *)'])
    for (const command of [
      "bash -c 'rm victim.txt'",
      'timeout 5 rm victim.txt',
      'env rm victim.txt',
      'echo victim.txt | xargs rm',
      '/bin/rm victim.txt',
    ]) {
      const bash = await use(client, 'Bash', { command })
      expect(bash.isError, command).toBe(true)
      expect(bash.text, command).toContain('denied')
      expect(existsSync(ws('victim.txt')), command).toBe(true)
    }
    // What the deny rule does not name still runs in dangerous.
    expect((await use(client, 'Bash', { command: 'echo fine' })).text).toContain('fine')
  })

  it('a call the client cancels stops its command, and the server serves the next', async () => {
    const { client } = await connect(['--max-mode', 'dangerous'])
    const abort = new AbortController()
    const progress: string[] = []
    const pending = client.callTool(
      { name: 'Bash', arguments: { command: 'echo $$ > sleeper.pid; echo warming up; exec sleep 300' } },
      undefined,
      { signal: abort.signal, onprogress: (p) => progress.push(p.message ?? '') },
    )
    const pid = await readPidFile(ws('sleeper.pid'))
    seen.push(pid)
    // Live output reaches a client that asked for progress, as the card's preview does in the TUI.
    await waitFor(() => progress.some((line) => line.includes('warming up')), 'the live output')
    abort.abort()
    await expect(pending).rejects.toThrow()
    await waitFor(() => isGone(pid), 'the cancelled command to be killed')
    await writeFile(ws('after.txt'), 'still serving\n')
    expect((await use(client, 'Read', { file_path: 'after.txt' })).text).toContain('still serving')
  })
})

describe.runIf(osSandbox?.kind === 'bwrap')('agent-tui mcp serve --expose-tools --sandbox', () => {
  it('auto runs commands unasked inside the sandbox, which stops a write the policy cannot see', async () => {
    const { client } = await connect(['--max-mode', 'auto', '--sandbox'])
    const inside = await use(client, 'Bash', { command: 'touch inside.txt && echo created' })
    expect(inside.text).toContain('created')
    expect(existsSync(ws('inside.txt'))).toBe(true)
    // A program's own write, which no command analysis sees: the sandbox refuses it.
    const target = join(env.box.root, 'outside.txt')
    const sneaky = await use(client, 'Bash', {
      command: `"${process.execPath}" -e "require('fs').writeFileSync('${target}', 'x')"`,
    })
    expect(sneaky.isError).toBe(true)
    expect(sneaky.text).toMatch(/EROFS|read-only file system/i)
    expect(existsSync(target)).toBe(false)
  })

  it('cannot read or grep a file the sandbox hides by swapping a link between the check and the open', async () => {
    // A credential the sandbox hides and the read boundary keeps out.
    await mkdir(join(env.box.home, '.ssh'))
    await writeFile(join(env.box.home, '.ssh', 'id_rsa'), 'PRIVATE KEY MATERIAL\n')
    await writeFile(ws('decoy.txt'), 'decoy\n')
    const { client } = await connect(['--max-mode', 'auto', '--sandbox'])
    // The job runs unasked in the sandbox: it cannot read the key, but it can flip a link in the workspace.
    const script = `while :; do ln -sfn ${join(env.box.home, '.ssh', 'id_rsa')} l.tmp && mv -T l.tmp link; ln -sfn decoy.txt l.tmp && mv -T l.tmp link; done\n`
    expect((await use(client, 'Write', { file_path: 'race.sh', content: script })).isError).toBe(false)
    const job = await use(client, 'Bash', { command: 'sh race.sh', run_in_background: true })
    expect(job.isError, job.text).toBe(false)
    await waitFor(() => existsSync(ws('link')), 'the link to be flipping')
    let decoys = 0
    // Before the fix about one Read in a hundred won the race (Grep one in four): enough tries that one would.
    for (let i = 0; i < 600; i++) {
      const read = await use(client, 'Read', { file_path: 'link' })
      expect(read.text, `read ${i}`).not.toContain('PRIVAT')
      if (read.text.includes('decoy')) decoys++
    }
    for (let i = 0; i < 100; i++) {
      const grep = await use(client, 'Grep', {
        pattern: 'PRIVATE|decoy',
        path: 'link',
        output_mode: 'content',
      })
      expect(grep.text, `grep ${i}`).not.toContain('PRIVAT')
      if (grep.text.includes('decoy')) decoys++
    }
    // The race was on: some calls landed on the decoy.
    expect(decoys).toBeGreaterThan(0)
    const id = /background task (\S+?)\b/.exec(job.text)?.[1]
    await use(client, 'TaskStop', { task_id: id })
  })
})
