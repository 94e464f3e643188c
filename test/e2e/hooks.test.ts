/**
 * Hooks end to end (docs/hooks.md, issue #25): the built CLI, headless, against the scripted server, with
 * hooks configured in real settings files and run as real processes. The server records every request,
 * so what the model was told is asserted, not assumed.
 */
import { execFileSync } from 'node:child_process'
import { access, mkdir, readFile, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { isProcessAlive, pollUntil } from '../../source/tasks/process-group.js'
import { setupE2eEnv } from '../support/e2e-env.ts'
import { runCli } from '../support/run-cli.ts'

const env = setupE2eEnv()
const RALPH = join(
  import.meta.dirname,
  '../fixtures/claude-code/anthropics-claude-plugins-official/plugins/ralph-loop',
)

type Msg = { role: string; content?: unknown }
type Trace = {
  status: string
  tool_calls: Array<{ name: string; status: string }>
  hooks: Array<{ text: string }>
}

const node = JSON.stringify(process.execPath)
const messages = (i: number) => (env.server.requests[i]?.body.messages ?? []) as Msg[]
const toolResults = (i: number) =>
  messages(i)
    .filter((m) => m.role === 'tool')
    .map((m) => String(m.content))
const bash = (command: string) => ({ toolCalls: [{ name: 'Bash', arguments: { command } }] })
const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  )

/** Writes the user's settings file (~/.config/agent-tui/settings.json). */
async function userSettings(settings: unknown) {
  const file = join(env.box.home, '.config', 'agent-tui', 'settings.json')
  await mkdir(dirname(file), { recursive: true })
  await writeFile(file, JSON.stringify(settings))
}

/** A hook script run with this Node: `body` sees the event as `input` and may use `fs`. */
async function script(name: string, body: string): Promise<string> {
  const file = join(env.box.root, `${name}.mjs`)
  await writeFile(
    file,
    `import fs from 'node:fs'\nconst input = JSON.parse(fs.readFileSync(0, 'utf8'))\n${body}\n`,
  )
  return `${node} ${JSON.stringify(file)}`
}

const hooks = (event: string, command: string, extra: { matcher?: string; timeout?: number } = {}) => ({
  [event]: [
    {
      ...(extra.matcher ? { matcher: extra.matcher } : {}),
      hooks: [{ type: 'command', command, ...(extra.timeout ? { timeout: extra.timeout } : {}) }],
    },
  ],
})

async function pollUntilAsync(condition: () => Promise<boolean>, timeoutMs = 10_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  while (!(await condition())) {
    if (Date.now() > deadline) return false
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  return true
}

async function run(args: string[]) {
  const r = await env.cli(['-p', 'go', '--output-format', 'json', ...args])
  return { ...r, trace: JSON.parse(r.stdout) as Trace }
}

describe('headless hooks', () => {
  it('a PreToolUse hook that exits 2 for Bash(rm *) blocks it, and the model reads its reason', async () => {
    const guard = await script(
      'guard',
      `if (input.tool_input.command.startsWith('rm ')) { console.error('rm is not allowed here: ' + input.tool_input.command); process.exit(2) }`,
    )
    await userSettings({ hooks: hooks('PreToolUse', guard, { matcher: 'Bash' }) })
    await writeFile(join(env.box.workspace, 'keep.txt'), 'x')
    env.server.enqueue(bash('rm keep.txt'), bash('echo fine'), { text: 'done' })
    const r = await run(['--mode', 'dangerous'])
    expect(r.code).toBe(0)
    expect(r.trace.tool_calls.map((c) => c.status)).toEqual(['denied', 'done'])
    expect(await exists(join(env.box.workspace, 'keep.txt'))).toBe(true)
    expect(toolResults(1)[0]).toContain(
      'Bash blocked by a PreToolUse hook: rm is not allowed here: rm keep.txt',
    )
    expect(r.trace.hooks.map((h) => h.text)).toEqual([
      'PreToolUse hook blocked Bash: rm is not allowed here: rm keep.txt',
    ])
  })

  it('PostToolUse sees the tool result; UserPromptSubmit adds context the model reads', async () => {
    const seen = join(env.box.root, 'post.json')
    await userSettings({
      hooks: {
        ...hooks(
          'PostToolUse',
          await script('post', `fs.writeFileSync(${JSON.stringify(seen)}, JSON.stringify(input))`),
        ),
        ...hooks('UserPromptSubmit', await script('ctx', `console.log('Deploys are frozen until Monday.')`)),
      },
    })
    env.server.enqueue(bash('echo hello-from-bash'), { text: 'done' })
    const r = await run(['--mode', 'dangerous'])
    expect(r.code).toBe(0)
    expect(messages(0).filter((m) => m.role === 'user')).toEqual([
      { role: 'user', content: 'go' },
      {
        role: 'user',
        content: 'Context added by a UserPromptSubmit hook:\nDeploys are frozen until Monday.',
      },
    ])
    const post = JSON.parse(await readFile(seen, 'utf8'))
    expect(post).toMatchObject({
      hook_event_name: 'PostToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'echo hello-from-bash' },
      tool_response: { success: true, exitCode: 0, stdout: 'hello-from-bash\n' },
      cwd: env.box.workspace,
      permission_mode: 'bypassPermissions',
    })
    expect(post.transcript_path).toMatch(/\.jsonl$/)
  })

  it('tool_input.file_path is absolute, as in Claude Code: a file named like an option never reaches a formatter as one', async () => {
    // A formatter that loads plugins named on its command line, as prettier does (`--plugin=./x.cjs`).
    const formatter = join(env.box.root, 'fmt.mjs')
    await writeFile(
      formatter,
      `import { createRequire } from 'node:module'\nfor (const arg of process.argv.slice(2)) if (arg.startsWith('--plugin=')) createRequire(process.cwd() + '/')(arg.slice(9))\n`,
    )
    const seen = join(env.box.root, 'path.txt')
    const readPath = await script(
      'path',
      `fs.writeFileSync(${JSON.stringify(seen)}, input.tool_input.file_path); console.log(input.tool_input.file_path)`,
    )
    await userSettings({
      hooks: hooks('PostToolUse', `f=$(${readPath}) && ${node} ${JSON.stringify(formatter)} --write "$f"`, {
        matcher: 'Edit|Write',
      }),
    })
    const ran = join(env.box.root, 'plugin-ran')
    env.server.enqueue(
      {
        toolCalls: [
          {
            name: 'Write',
            arguments: {
              file_path: 'evil.cjs',
              content: `require('fs').writeFileSync(${JSON.stringify(ran)}, 'outside any sandbox')\n`,
            },
          },
        ],
      },
      { toolCalls: [{ name: 'Write', arguments: { file_path: '--plugin=./evil.cjs', content: 'x\n' } }] },
      { text: 'done' },
    )
    // Auto mode accepts edits unasked: the hook must not turn them into a program run outside the sandbox.
    const r = await run(['--mode', 'auto'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.trace.tool_calls.map((c) => c.status)).toEqual(['done', 'done'])
    expect(await readFile(seen, 'utf8')).toBe(join(env.box.workspace, '--plugin=./evil.cjs'))
    expect(await exists(ran)).toBe(false)
  })

  it('a UserPromptSubmit hook that exits 2 blocks the prompt: nothing is sent, stderr says why once, exit 3', async () => {
    await userSettings({ hooks: hooks('UserPromptSubmit', 'echo "prompts must name a ticket" >&2; exit 2') })
    const r = await env.cli(['-p', 'fix it'])
    expect(r.code).toBe(3)
    expect(env.server.requests).toHaveLength(0)
    expect(r.stderr).toBe('agent-tui: UserPromptSubmit hook blocked the prompt: prompts must name a ticket\n')
  })

  it('a hook that hangs is killed at its timeout with its whole process group, and the run goes on', async () => {
    const pids = join(env.box.root, 'pids')
    await userSettings({
      hooks: hooks('PreToolUse', `sleep 300 & echo $! > ${pids}; echo $$ >> ${pids}; wait`, { timeout: 1 }),
    })
    env.server.enqueue(bash('echo after'), { text: 'done' })
    const r = await run(['--mode', 'dangerous'])
    expect(r.code).toBe(0)
    expect(r.trace.tool_calls.map((c) => c.status)).toEqual(['done'])
    expect(r.trace.hooks.map((h) => h.text)).toEqual([
      'PreToolUse hook timed out after 1 s and was stopped (its processes were killed)',
    ])
    const spawned = (await readFile(pids, 'utf8')).split(/\s+/).filter(Boolean).map(Number)
    expect(spawned).toHaveLength(2)
    expect(await pollUntil(() => spawned.every((pid) => !isProcessAlive(pid)), { timeoutMs: 2000 })).toBe(
      true,
    )
  })

  it('a hook still running when agent-tui is stopped (SIGTERM) goes with it: no orphan', async () => {
    const pids = join(env.box.root, 'pids')
    await userSettings({
      hooks: hooks('UserPromptSubmit', `sleep 300 & echo $! > ${pids}; echo $$ >> ${pids}; wait`),
    })
    let cli = 0
    const result = runCli(['--base-url', env.server.baseUrl, '--model', 'm', '-p', 'go'], {
      cwd: env.box.workspace,
      env: env.box.env,
      timeoutMs: 40_000,
      onSpawn: (pid) => {
        cli = pid
      },
    })
    const written = async () => (await readFile(pids, 'utf8').catch(() => '')).split('\n').filter(Boolean)
    expect(await pollUntilAsync(async () => (await written()).length === 2)).toBe(true)
    process.kill(cli, 'SIGTERM')
    expect((await result).code).toBe(143)
    const spawned = (await written()).map(Number)
    expect(await pollUntil(() => spawned.every((pid) => !isProcessAlive(pid)), { timeoutMs: 2000 })).toBe(
      true,
    )
  })

  it('updatedInput rewrites the call, and the permission check judges the rewritten command', async () => {
    const rewrite = await script(
      'rewrite',
      `const c = input.tool_input.command
       const to = c === 'echo original' ? 'echo rewritten' : 'rm -f keep.txt'
       console.log(JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', updatedInput: { command: to } } }))`,
    )
    await userSettings({ permissions: { deny: ['Bash(rm *)'] }, hooks: hooks('PreToolUse', rewrite) })
    await writeFile(join(env.box.workspace, 'keep.txt'), 'x')
    env.server.enqueue(bash('echo original'), bash('echo harmless'), { text: 'done' })
    const r = await run(['--mode', 'dangerous'])
    expect(r.code).toBe(0)
    expect(toolResults(1)[0]).toContain('rewritten')
    expect(r.trace.tool_calls.map((c) => c.status)).toEqual(['done', 'denied'])
    expect(toolResults(2)[1]).toContain('rule Bash(rm *)')
    expect(await exists(join(env.box.workspace, 'keep.txt'))).toBe(true)
  })

  it('a PreToolUse allow skips what ci mode would deny, but not a deny rule', async () => {
    const allow = await script(
      'allow',
      `console.log(JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow' } }))`,
    )
    await userSettings({ permissions: { deny: ['Bash(rm *)'] }, hooks: hooks('PreToolUse', allow) })
    await writeFile(join(env.box.workspace, 'keep.txt'), 'x')
    env.server.enqueue(bash('touch made.txt'), bash('rm keep.txt'), { text: 'done' })
    const r = await run([])
    expect(r.code).toBe(0)
    expect(r.trace.tool_calls.map((c) => c.status)).toEqual(['done', 'denied'])
    expect(await exists(join(env.box.workspace, 'made.txt'))).toBe(true)
    expect(await exists(join(env.box.workspace, 'keep.txt'))).toBe(true)
    expect(toolResults(2)[1]).toContain('rule Bash(rm *)')
    expect(r.trace.hooks.map((h) => h.text)).toEqual([
      expect.stringMatching(/^PreToolUse hook allowed Bash without asking \(otherwise: ci mode denies/),
      expect.stringMatching(
        /^PreToolUse hook allowed Bash, but its allow does not override this: rule Bash\(rm \*\)/,
      ),
    ])
  })

  it('SessionStart adds context before the first request; SessionEnd runs when the run ends', async () => {
    const ended = join(env.box.root, 'end.json')
    await userSettings({
      hooks: {
        ...hooks(
          'SessionStart',
          await script(
            'start',
            `console.log(JSON.stringify({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: 'started via ' + input.source } }))`,
          ),
        ),
        ...hooks(
          'SessionEnd',
          await script('end', `fs.writeFileSync(${JSON.stringify(ended)}, JSON.stringify(input))`),
        ),
      },
    })
    env.server.enqueue({ text: 'done' })
    const r = await run([])
    expect(r.code).toBe(0)
    expect(messages(0).slice(1)).toEqual([
      { role: 'user', content: 'Context added by a SessionStart hook:\nstarted via startup' },
      { role: 'user', content: 'go' },
    ])
    expect(JSON.parse(await readFile(ended, 'utf8'))).toMatchObject({
      hook_event_name: 'SessionEnd',
      reason: 'other',
    })
  })

  it('a Stop hook sends the model back to work once, and stop_hook_active lets it stop', async () => {
    const stop = await script(
      'stop',
      `if (!input.stop_hook_active) { console.error('run the tests before you stop'); process.exit(2) }`,
    )
    await userSettings({ hooks: hooks('Stop', stop) })
    env.server.enqueue({ text: 'all done' }, { text: 'tests pass, done' })
    const r = await run([])
    expect(r.code).toBe(0)
    expect(env.server.requests).toHaveLength(2)
    expect(messages(1).at(-1)).toEqual({
      role: 'user',
      content: 'Stop hook feedback:\nrun the tests before you stop',
    })
    expect(JSON.parse(r.stdout).result).toBe('tests pass, done')
  })

  it("a real Claude Code Stop hook that reads transcript_path works unchanged (ralph-loop's stop-hook.sh)", async () => {
    // anthropics/claude-plugins-official's script, byte for byte: it greps the transcript for the last
    // assistant text block and lets the session stop once it holds the completion promise.
    const script = join(RALPH, 'hooks', 'stop-hook.sh')
    await userSettings({ hooks: hooks('Stop', `bash ${JSON.stringify(script)}`) })
    const state = join(env.box.workspace, '.claude', 'ralph-loop.local.md')
    await mkdir(dirname(state), { recursive: true })
    await writeFile(
      state,
      '---\nactive: true\niteration: 1\nmax_iterations: 5\ncompletion_promise: "DONE"\n---\n\nMake the tests pass.\n',
    )
    env.server.enqueue({ text: 'still working' }, { text: 'All green. <promise>DONE</promise>' })
    const r = await run([])
    expect(r.code).toBe(0)
    // Fed back once (the first reply lacks the promise), then the promise in the transcript ends the loop.
    expect(env.server.requests).toHaveLength(2)
    expect(messages(1).at(-1)).toEqual({ role: 'user', content: 'Stop hook feedback:\nMake the tests pass.' })
    expect(await exists(state)).toBe(false)
    expect(JSON.parse(r.stdout).result).toBe('All green. <promise>DONE</promise>')
  })

  it("an untrusted repository's hooks do not run and are named; --trust-project runs them", async () => {
    const marker = join(env.box.root, 'ran')
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
        cwd: env.box.workspace,
        stdio: 'pipe',
      })
    git('init', '-q')
    await mkdir(join(env.box.workspace, '.agent-tui'), { recursive: true })
    await writeFile(
      join(env.box.workspace, '.agent-tui', 'settings.json'),
      JSON.stringify({ hooks: hooks('UserPromptSubmit', `touch ${marker}`) }),
    )
    git('add', '-A')
    git('commit', '-q', '-m', 'hooks')
    env.server.enqueue({ text: 'done' }, { text: 'done' })
    const untrusted = await run([])
    expect(untrusted.code).toBe(0)
    expect(await exists(marker)).toBe(false)
    expect(untrusted.stderr).toContain('is not a trusted folder, so what its repository brings is ignored:')
    expect(untrusted.stderr).toContain(`  hook UserPromptSubmit: touch ${marker} (.agent-tui/settings.json)`)
    const trusted = await run(['--trust-project'])
    expect(trusted.code).toBe(0)
    expect(await exists(marker)).toBe(true)
  })
})
