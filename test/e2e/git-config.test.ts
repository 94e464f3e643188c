import { execFileSync } from 'node:child_process'
import { chmod, mkdir, readdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { setupE2eEnv } from '../support/e2e-env.ts'

/**
 * "Read-only" git against a hostile repository's own config, end to end: the model (scripted) runs git
 * commands the classifier lets run unasked, in an untrusted folder, and nothing the repository's config
 * names runs — neutralised where git allows it, refused where it does not. agent-tui's own git
 * (checkpoints) runs nothing either.
 */

const env = setupE2eEnv()

type Trace = { tool_calls: Array<{ name: string; status: string }> }
type Msg = { role: string; content: string }

function toolResults(): string[] {
  const last = env.server.requests.at(-1)?.body.messages as Msg[] | undefined
  return (last ?? []).filter((m) => m.role === 'tool').map((m) => m.content)
}

/** A repository with one commit and one change, its config extended by `config`; the marker dir's names. */
async function hostileRepo(config: string, files: Record<string, string> = {}): Promise<string> {
  const ws = env.box.workspace
  const markers = join(env.box.root, 'markers')
  await mkdir(markers)
  const script = join(env.box.root, 'ran.sh')
  await writeFile(script, `#!/bin/sh\ntouch "${markers}/$1"\nexit 1\n`)
  await chmod(script, 0o755)
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: ws, env: { ...env.box.env, GIT_CONFIG_NOSYSTEM: '1' } })
  git('init', '-q')
  await writeFile(join(ws, 'a.txt'), 'hello\n')
  for (const [name, text] of Object.entries(files)) await writeFile(join(ws, name), text)
  git('add', '.')
  git('-c', 'user.email=a@b', '-c', 'user.name=a', 'commit', '-qm', 'one')
  await writeFile(join(ws, 'a.txt'), 'hello\nchanged\n')
  await writeFile(join(ws, '.git', 'config'), config.replaceAll('RUN', script), { flag: 'a' })
  const hook = join(ws, '.git', 'hooks', 'post-index-change')
  await writeFile(hook, `#!/bin/sh\n${script} hook\n`)
  await chmod(hook, 0o755)
  return markers
}

describe('read-only git and the repository’s own config (headless)', () => {
  it('plan mode, untrusted: git status, diff and log run, without fsmonitor, the pager or a hook', async () => {
    const markers = await hostileRepo('[core]\n\tfsmonitor = RUN fsmonitor\n\tpager = RUN pager\n')
    env.server.enqueue(
      {
        toolCalls: [
          { name: 'Bash', arguments: { command: 'git status' } },
          { name: 'Bash', arguments: { command: 'git diff' } },
          { name: 'Bash', arguments: { command: 'git log -p -1' } },
        ],
      },
      { text: 'done' },
    )
    const r = await env.cli(['-p', 'look', '--mode', 'plan', '--output-format', 'json'])
    const trace = JSON.parse(r.stdout) as Trace
    expect(trace.tool_calls.map((c) => c.status)).toEqual(['done', 'done', 'done'])
    const [status, diff] = toolResults()
    expect(status).toContain('modified:   a.txt')
    expect(diff).toContain('+changed')
    expect(await readdir(markers)).toEqual([])
  })

  it('plan, safe and ci mode: diff.external or a driver the repository names makes the call one that executes', async () => {
    const markers = await hostileRepo('[diff]\n\texternal = RUN external\n', {
      '.gitattributes': '* diff=evil\n',
    })
    // The driver comes from a file the repository's config includes.
    await writeFile(join(env.box.workspace, '.git', 'config'), '[include]\n\tpath = ../drivers.cfg\n', {
      flag: 'a',
    })
    await writeFile(
      join(env.box.workspace, 'drivers.cfg'),
      `[diff "evil"]\n\ttextconv = ${join(env.box.root, 'ran.sh')} textconv\n`,
    )
    for (const mode of ['plan', 'safe', 'ci']) {
      env.server.enqueue(
        {
          toolCalls: [
            { name: 'Bash', arguments: { command: 'git diff' } },
            { name: 'Bash', arguments: { command: 'cd . && git log -p -1' } },
          ],
        },
        { text: 'done' },
      )
      const r = await env.cli(['-p', 'look', '--mode', mode, '--output-format', 'json'])
      const trace = JSON.parse(r.stdout) as Trace
      expect(trace.tool_calls.map((c) => c.status)).toEqual(['denied', 'denied'])
      // ci mode denies every command without an allow rule; the others say why this one is not read-only.
      if (mode !== 'ci')
        for (const result of toolResults())
          expect(result).toContain(
            "the repository's git config (.git/config) sets diff.external, a program git runs (and 1 more)",
          )
    }
    expect(await readdir(markers)).toEqual([])
  })

  it('auto mode: the checkpoint before an edit runs none of the filters the repository (or a nested one) configures', async () => {
    const markers = await hostileRepo(
      '[filter "evil"]\n\tclean = RUN clean\n\tsmudge = RUN smudge\n[core]\n\tfsmonitor = RUN fsmonitor\n',
      { '.gitattributes': '* filter=evil\n' },
    )
    // A nested repository with a filter of its own, which .gitmodules asks git to look into.
    const lib = join(env.box.workspace, 'vendor', 'lib')
    const git = (...args: string[]) =>
      execFileSync('git', args, { cwd: lib, env: { ...env.box.env, GIT_CONFIG_NOSYSTEM: '1' } })
    await mkdir(lib, { recursive: true })
    git('init', '-q')
    await writeFile(join(lib, '.gitattributes'), '* filter=nested\n')
    await writeFile(join(lib, 'x.txt'), 'x\n')
    git('add', '.')
    git('-c', 'user.email=a@b', '-c', 'user.name=a', 'commit', '-qm', 'lib')
    await writeFile(
      join(lib, '.git', 'config'),
      `[filter "nested"]\n\tclean = ${join(env.box.root, 'ran.sh')} nested\n`,
      {
        flag: 'a',
      },
    )
    await writeFile(join(lib, 'x.txt'), 'changed\n')
    await writeFile(
      join(env.box.workspace, '.gitmodules'),
      '[submodule "lib"]\n\tpath = vendor/lib\n\turl = ./x\n\tignore = none\n',
    )
    env.server.enqueue(
      {
        toolCalls: [
          { name: 'Write', arguments: { file_path: join(env.box.workspace, 'b.txt'), content: 'new\n' } },
        ],
      },
      { text: 'done' },
    )
    const r = await env.cli(['-p', 'write', '--mode', 'auto', '--output-format', 'json'])
    const trace = JSON.parse(r.stdout) as Trace
    expect(trace.tool_calls.map((c) => c.status)).toEqual(['done'])
    // A snapshot was taken (its shadow repository exists) and ran nothing.
    const state = join(env.box.home, '.local', 'state', 'agent-tui', 'checkpoints')
    expect((await readdir(state)).length).toBe(1)
    expect(await readdir(markers)).toEqual([])
  })

  it('plan mode, untrusted: no read-only git call opens a pager on matches, reads past the boundary through an abbreviated option, or prints a file the repository includes', async () => {
    const markers = await hostileRepo('', {
      // What `git grep -O sh` would run: every file that matches.
      'run.txt': `# hello\ntouch "${join(env.box.root, 'markers', 'grep-pager')}"\n`,
    })
    const outside = join(env.box.root, 'outside.txt')
    await writeFile(outside, 'OUTSIDE-SECRET\n')
    const run = async (commands: string[]) => {
      env.server.enqueue(
        { toolCalls: commands.map((command) => ({ name: 'Bash', arguments: { command } })) },
        { text: 'done' },
      )
      const r = await env.cli(['-p', 'look', '--mode', 'plan', '--output-format', 'json'])
      return (JSON.parse(r.stdout) as Trace).tool_calls.map((c) => c.status)
    }
    expect(
      await run(['git grep -nOsh hello', 'git grep --open=sh hello', `git blame --conten=${outside} a.txt`]),
    ).toEqual(['denied', 'denied', 'denied'])
    expect(toolResults().join('\n')).not.toContain('OUTSIDE-SECRET')
    // The repository's config includes the user's ~/.pypirc: `git config` would print its password.
    await writeFile(join(env.box.home, '.pypirc'), '[pypi]\n\tpassword = pypi-SECRET\n')
    await writeFile(join(env.box.workspace, '.git', 'config'), '[include]\n\tpath = ~/.pypirc\n', {
      flag: 'a',
    })
    expect(await run(['git config --get pypi.password', 'git grep -n hello'])).toEqual(['denied', 'denied'])
    const results = toolResults()
    expect(results[0]).toContain("the repository's git config sets include.path to")
    expect(results.join('\n')).not.toContain('pypi-SECRET')
    expect(await readdir(markers)).toEqual([])
  })
})
