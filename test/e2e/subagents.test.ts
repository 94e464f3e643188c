import { existsSync } from 'node:fs'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  agentCall,
  agentRouter,
  isMain,
  lastToolResult,
  messagesOf,
  systemOf,
  taskOf,
  toolNamesOf,
} from '../support/agent-router.ts'
import { setupE2eEnv } from '../support/e2e-env.ts'
import { osSandbox } from '../support/os-sandbox.ts'
import { repoRoot } from '../support/run-cli.ts'
import { isGone, waitFor } from '../unit/tasks/helpers.ts'

const env = setupE2eEnv()
const { cli } = env

type Trace = { result: string; status: string; usage: { input: number; output: number }; errors: string[] }
const READ_ONLY = ['Bash', 'Read', 'Glob', 'Grep', 'WebFetch', 'WebSearch']
const call = (name: string, args: Record<string, unknown>) => ({ toolCalls: [{ name, arguments: args }] })
const usage = { prompt: 100, completion: 10 }
const mainRequests = () => env.server.requests.filter(isMain)
const agentRequests = (key: string) =>
  env.server.requests.filter((r) => !isMain(r) && taskOf(r).includes(key))

async function writeAgent(file: string, text: string) {
  await mkdir(join(env.box.workspace, '.agent-tui', 'agents'), { recursive: true })
  await writeFile(join(env.box.workspace, '.agent-tui', 'agents', file), text)
}

describe('the Agent tool (headless)', () => {
  it('runs an explore subagent in its own conversation and returns its answer with a trace', async () => {
    await writeFile(join(env.box.workspace, 'notes.txt'), 'the answer is 42\n')
    const router = agentRouter()
      .main(
        {
          ...call('Agent', {
            description: 'Find the answer',
            prompt: 'TASK-X: what does notes.txt say?',
            subagent_type: 'explore',
          }),
          usage,
        },
        { text: 'It says 42.', usage },
      )
      .agent(
        'TASK-X',
        { ...call('Read', { file_path: 'notes.txt' }), usage },
        { text: 'notes.txt says: the answer is 42', usage },
      )
    env.server.enqueue(...router.sources())
    const r = await cli(['-p', 'ask a subagent', '--output-format', 'json'])
    expect(r.code, r.stderr).toBe(0)
    const child = agentRequests('TASK-X')
    expect(child).toHaveLength(2)
    // Its own system prompt and only read-only tools; the main session's history is not in it.
    expect(systemOf(child[0])).toMatch(/^You are an explore agent/)
    expect(toolNamesOf(child[0])).toEqual(READ_ONLY)
    expect(messagesOf(child[0]).map((m) => m.role)).toEqual(['system', 'user'])
    expect(lastToolResult(child[1])).toContain('the answer is 42')
    const [, after] = mainRequests()
    const result = lastToolResult(after)
    expect(result).toContain('notes.txt says: the answer is 42')
    expect(result).toMatch(/<agent-trace>explore · completed · 2 steps · tools: Read · 220 tokens/)
    expect(toolNamesOf(mainRequests()[0])).toContain('Agent')
    // Four requests of 100 + 10 tokens: the subagent's count in the session's usage.
    const trace = JSON.parse(r.stdout) as Trace
    expect(trace.usage).toMatchObject({ input: 400, output: 40 })
  })

  it('runs three Agent calls of one step at the same time and returns their results in call order', async () => {
    const tasks = ['TASK-A', 'TASK-B', 'TASK-C']
    const router = agentRouter().main(
      {
        toolCalls: tasks.map((t) =>
          agentCall({ description: t, prompt: `${t}: look`, subagent_type: 'explore' }),
        ),
      },
      { text: 'all three answered' },
    )
    // Each subagent's request is answered only once all three are open: they must overlap.
    for (const t of tasks) router.agent(t, { text: `answer of ${t}`, holdUntilInFlight: 3 })
    env.server.enqueue(...router.sources())
    const r = await cli(['-p', 'three at once'])
    expect(r.code, r.stderr).toBe(0)
    expect(env.server.maxInFlight).toBeGreaterThanOrEqual(3)
    const results = messagesOf(mainRequests()[1]).filter((m) => m.role === 'tool')
    expect(results.map((m) => String(m.content).split('\n')[0])).toEqual(tasks.map((t) => `answer of ${t}`))
  })

  it('runs at most agents.maxParallel subagents at once; the others wait for a slot', async () => {
    const configDir = join(env.box.home, '.config', 'agent-tui')
    await mkdir(configDir, { recursive: true })
    await writeFile(join(configDir, 'settings.json'), JSON.stringify({ agents: { maxParallel: 2 } }))
    const tasks = ['TASK-1', 'TASK-2', 'TASK-3']
    const router = agentRouter().main(
      { toolCalls: tasks.map((t) => agentCall({ description: t, prompt: t, subagent_type: 'explore' })) },
      { text: 'done' },
    )
    // Each would wait for all three to be open; only two ever are, so each answers after its wait.
    for (const t of tasks)
      router.agent(t, { text: `answer of ${t}`, holdUntilInFlight: 3, holdTimeoutMs: 300 })
    env.server.enqueue(...router.sources())
    const r = await cli(['-p', 'three, two at a time'])
    expect(r.code, r.stderr).toBe(0)
    expect(env.server.maxInFlight).toBe(2)
    const results = messagesOf(mainRequests()[1]).filter((m) => m.role === 'tool')
    expect(results.map((m) => String(m.content).split('\n')[0])).toEqual(tasks.map((t) => `answer of ${t}`))
  })

  it('starts a background subagent: TaskOutput lists it, it finishes, and the main session is told', async () => {
    const router = agentRouter()
      .main(
        call('Agent', {
          description: 'Slow look',
          prompt: 'TASK-BG: wait, then answer',
          subagent_type: 'general-purpose',
          run_in_background: true,
        }),
        call('TaskOutput', { task_id: 'a1', block: false }),
        call('Bash', { command: 'touch go' }),
        call('TaskOutput', { task_id: 'a1', block: true, timeout: 20000 }),
        { text: 'noted' },
      )
      .agent('TASK-BG', call('Bash', { command: 'until [ -f go ]; do sleep 0.02; done; echo released' }), {
        text: 'background answer: all good',
      })
    env.server.enqueue(...router.sources())
    const r = await cli(['-p', 'background please', '--mode', 'dangerous'])
    expect(r.code, r.stderr).toBe(0)
    const main = mainRequests()
    expect(lastToolResult(main[1])).toMatch(/Started background agent a1/)
    const listing = lastToolResult(main[2])
    expect(listing).toMatch(/Task a1 \(general-purpose agent: Slow look\): running/)
    expect(listing).toContain('general-purpose agent started: Slow look')
    const done = lastToolResult(main[4])
    expect(done).toMatch(/completed/)
    expect(done).toContain('✓ Bash until [ -f go ]')
    expect(done).toContain('background answer: all good')
    // Announced once, at a step after it ended, as a message of its own (never inside a tool result).
    const told = messagesOf(main[4]).filter(
      (m) => m.role === 'user' && String(m.content).includes('<background-agent id="a1" status="completed">'),
    )
    expect(told).toHaveLength(1)
    // Before or after the model read the answer with TaskOutput: the answer is given, or it says so.
    expect(String(told[0]?.content)).toMatch(
      /background answer: all good|You already read its answer with TaskOutput/,
    )
  })

  it('says on stderr which background subagent and job the end of a headless run stops', async () => {
    const router = agentRouter()
      .main(
        call('Agent', { description: 'Slow', prompt: 'TASK-LEFT: wait', run_in_background: true }),
        // The main session ends its turn only once the subagent's job has started.
        call('Bash', { command: 'until [ -f started ]; do sleep 0.02; done' }),
        { text: 'not waiting' },
      )
      .agent('TASK-LEFT', call('Bash', { command: 'touch started; sleep 300', run_in_background: true }), {
        text: 'still thinking',
        hangAfterChunks: 0,
      })
    env.server.enqueue(...router.sources())
    const r = await cli(['-p', 'leave it running', '--mode', 'dangerous'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toBe('not waiting\n')
    expect(r.stderr).toContain(
      'warning: stopped at exit, still running: a1 (general-purpose agent: Slow), b1 (touch started; sleep 300);',
    )
  })

  it('TaskStop stops a running background subagent and the shell job it started', async () => {
    const router = agentRouter()
      .main(
        call('Agent', { description: 'Server', prompt: 'TASK-SRV: start a server', run_in_background: true }),
        call('Bash', { command: 'until [ -s job.pid ]; do sleep 0.02; done' }),
        call('TaskStop', { task_id: 'a1' }),
        call('TaskOutput', { task_id: 'b1', block: false }),
        { text: 'stopped it' },
      )
      .agent(
        'TASK-SRV',
        call('Bash', { command: 'echo $$ > job.pid; exec sleep 300', run_in_background: true }),
        // Then it thinks forever: only TaskStop ends it.
        { text: 'never finished', hangAfterChunks: 0 },
      )
    env.server.enqueue(...router.sources())
    const r = await cli(['-p', 'start and stop', '--mode', 'dangerous'])
    expect(r.code, r.stderr).toBe(0)
    const main = mainRequests()
    expect(lastToolResult(main[3])).toMatch(/Stopped task a1/)
    expect(lastToolResult(main[4])).toMatch(/Task b1 .*: stopped/)
    const pid = Number((await readFile(join(env.box.workspace, 'job.pid'), 'utf8')).trim())
    await waitFor(() => isGone(pid), "the subagent's shell job to be gone")
  })

  it('returns what a subagent has, with that status, when it hits max_turns', async () => {
    const router = agentRouter()
      .main(
        call('Agent', {
          description: 'Short',
          prompt: 'TASK-MAX: dig',
          subagent_type: 'explore',
          max_turns: 2,
        }),
        {
          text: 'ok',
        },
      )
      .agent('TASK-MAX', call('Glob', { pattern: '*' }), { text: 'partial findings so far' })
    env.server.enqueue(...router.sources())
    const r = await cli(['-p', 'limited'])
    expect(r.code, r.stderr).toBe(0)
    const last = agentRequests('TASK-MAX')[1]
    expect(last?.body.tool_choice).toBe('none')
    const result = lastToolResult(mainRequests()[1])
    expect(result).toContain('reached its turn limit (2 turns)')
    expect(result).toContain('partial findings so far')
    expect(result).toMatch(/explore · turn limit \(2\) · 2 steps/)
  })

  it("sends a subagent's requests to the model it was given, else its agent's, else the caller's", async () => {
    await writeAgent(
      'fast.md',
      '---\nname: fast\ndescription: Quick answers\nmodel: small-model\n---\nBe quick.\n',
    )
    const router = agentRouter()
      .main(
        {
          toolCalls: [
            agentCall({
              description: 'Given',
              prompt: 'TASK-GIVEN',
              subagent_type: 'fast',
              model: 'big-model',
            }),
            agentCall({ description: 'Own', prompt: 'TASK-OWN', subagent_type: 'fast' }),
            agentCall({ description: 'Caller', prompt: 'TASK-CALLER', subagent_type: 'explore' }),
          ],
        },
        { text: 'ok' },
      )
      .agent('TASK-GIVEN', { text: 'given' })
      .agent('TASK-OWN', { text: 'own' })
      .agent('TASK-CALLER', { text: 'caller' })
    env.server.enqueue(...router.sources())
    const r = await cli(['-p', 'models', '--trust-project'])
    expect(r.code, r.stderr).toBe(0)
    expect(agentRequests('TASK-GIVEN')[0]?.body.model).toBe('big-model')
    expect(agentRequests('TASK-OWN')[0]?.body.model).toBe('small-model')
    expect(agentRequests('TASK-CALLER')[0]?.body.model).toBe('m')
    expect(mainRequests().map((q) => q.body.model)).toEqual(['m', 'm'])
  })

  it('gives a custom agent from .agent-tui/agents only the tools it lists (trusted folder)', async () => {
    await writeAgent(
      'reader.md',
      '---\nname: reader\ndescription: Reads files and reports\ntools: [Read, Grep]\nmax_turns: 5\n---\nYou are the READER agent. Report briefly.\n',
    )
    const router = agentRouter()
      .main(call('Agent', { description: 'Use reader', prompt: 'TASK-R: read', subagent_type: 'reader' }), {
        text: 'ok',
      })
      .agent('TASK-R', { text: 'reader reporting' })
    env.server.enqueue(...router.sources())
    const r = await cli(['-p', 'custom', '--trust-project'])
    expect(r.code, r.stderr).toBe(0)
    const [child] = agentRequests('TASK-R')
    expect(toolNamesOf(child)).toEqual(['Read', 'Grep'])
    expect(systemOf(child)).toMatch(/^You are the READER agent/)
    const tools = (mainRequests()[0]?.body.tools ?? []) as Array<{
      function: { name: string; description: string }
    }>
    const agentTool = tools.find((t) => t.function.name === 'Agent')
    expect(agentTool?.function.description).toContain('- reader: Reads files and reports (tools: Read, Grep)')
    expect(lastToolResult(mainRequests()[1])).toContain('reader reporting')
  })

  it("withholds an agent's disallowedTools (Claude Code's names mapped), and says so in its listing", async () => {
    await writeAgent(
      'limited.md',
      '---\nname: limited\ndescription: Limited helper\ndisallowedTools: LS, KillShell, Task\n---\nYou are LIMITED.\n',
    )
    const router = agentRouter()
      .main(call('Agent', { description: 'Use it', prompt: 'TASK-L: go', subagent_type: 'limited' }), {
        text: 'ok',
      })
      .agent('TASK-L', { text: 'limited reporting' })
    env.server.enqueue(...router.sources())
    const r = await cli(['-p', 'custom', '--trust-project'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).not.toContain('not a field agent-tui knows')
    expect(r.stderr).toContain(
      `"disallowedTools": Claude Code's LS, KillShell and Task are Glob, TaskStop and Agent here`,
    )
    const names = toolNamesOf(agentRequests('TASK-L')[0])
    expect(names).toContain('Read')
    for (const gone of ['Glob', 'TaskStop', 'Agent']) expect(names).not.toContain(gone)
    const description = JSON.stringify(mainRequests()[0]?.body.tools)
    expect(description).toContain(
      '- limited: Limited helper (tools: every tool but Agent, except Glob, TaskStop, Agent)',
    )
  })

  it('loads no project agent in an untrusted folder', async () => {
    await writeAgent('reader.md', '---\nname: reader\ndescription: Reads\n---\nBody.\n')
    env.server.enqueue(call('Agent', { description: 'x', prompt: 'TASK-U', subagent_type: 'reader' }), {
      text: 'ok',
    })
    const r = await cli(['-p', 'custom'])
    expect(r.code, r.stderr).toBe(0)
    expect(lastToolResult(env.server.requests[1])).toMatch(/no agent type \\"reader\\"/)
    expect(env.server.requests).toHaveLength(2)
  })

  it('reports an invalid agent file with its file and field and runs anyway', async () => {
    await writeAgent('bad.md', '---\nname: bad\ndescription: Broken\nmax_turns: lots\n---\nBody.\n')
    await writeAgent('good.md', '---\ndescription: Fine\n---\nBody.\n')
    env.server.enqueue({ text: 'fine' })
    const r = await cli(['-p', 'hi', '--trust-project'])
    expect(r.code).toBe(0)
    expect(r.stderr).toContain('.agent-tui/agents/bad.md: "max_turns": expected a whole number of turns')
    expect(r.stderr).toContain('(agent not loaded)')
    const description = JSON.stringify(env.server.requests[0]?.body.tools)
    expect(description).toContain('- good: Fine')
    expect(description).not.toContain('- bad:')
  })

  it('--agent runs the main session as that agent; an unknown one exits 2 naming the agents', async () => {
    env.server.enqueue({ text: 'exploring' })
    const r = await cli(['-p', 'look around', '--agent', 'explore'])
    expect(r.code, r.stderr).toBe(0)
    const [req] = env.server.requests
    expect(systemOf(req)).toContain('# Agent profile: explore')
    expect(toolNamesOf(req)).toEqual(READ_ONLY)
    const bad = await cli(['-p', 'x', '--agent', 'nobody'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/no agent "nobody"; agents: build, general-purpose, explore, plan/)
  })

  it('in plan mode runs plan subagents only', async () => {
    const router = agentRouter()
      .main(
        call('Agent', { description: 'Explore', prompt: 'TASK-E: look', subagent_type: 'explore' }),
        call('Agent', { description: 'Plan it', prompt: 'TASK-P: plan', subagent_type: 'plan' }),
        { text: 'planned' },
      )
      .agent('TASK-P', { text: 'the plan: step 1' })
    env.server.enqueue(...router.sources())
    const r = await cli(['-p', 'plan', '--mode', 'plan'])
    expect(r.code, r.stderr).toBe(0)
    const main = mainRequests()
    expect(lastToolResult(main[1])).toMatch(/plan mode runs only plan subagents/)
    expect(agentRequests('TASK-E')).toHaveLength(0)
    expect(systemOf(agentRequests('TASK-P')[0])).toMatch(/^You are a planning agent/)
    expect(lastToolResult(main[2])).toContain('the plan: step 1')
  })

  it('never nests deeper than one level: only an agent that lists Agent may start one, its own cannot', async () => {
    await writeAgent(
      'lead.md',
      '---\nname: lead\ndescription: Delegates\ntools: [Read, Agent]\n---\nYou are the LEAD agent.\n',
    )
    const router = agentRouter()
      .main(
        call('Agent', { description: 'Lead', prompt: 'TASK-LEAD: delegate', subagent_type: 'lead' }),
        call('Agent', { description: 'Plain', prompt: 'TASK-GP: try to nest' }),
        { text: 'done' },
      )
      .agent(
        'TASK-LEAD',
        call('Agent', { description: 'Deep', prompt: 'TASK-DEEP: look', subagent_type: 'lead' }),
        {
          text: 'lead done',
        },
      )
      // A lead started by a lead is two levels down: it gets no Agent tool though its file lists it.
      .agent('TASK-DEEP', call('Agent', { description: 'Deeper', prompt: 'TASK-THIRD: no' }), {
        text: 'deep answer',
      })
      .agent('TASK-GP', call('Agent', { description: 'Nested', prompt: 'TASK-NO: never' }), {
        text: 'could not nest',
      })
    env.server.enqueue(...router.sources())
    const r = await cli(['-p', 'nest', '--trust-project'])
    expect(r.code, r.stderr).toBe(0)
    expect(toolNamesOf(agentRequests('TASK-LEAD')[0])).toEqual(['Read', 'Agent'])
    expect(systemOf(agentRequests('TASK-DEEP')[0])).toMatch(/^You are the LEAD agent/)
    expect(toolNamesOf(agentRequests('TASK-DEEP')[0])).toEqual(['Read'])
    expect(lastToolResult(agentRequests('TASK-DEEP')[1])).toMatch(/unknown tool \\"Agent\\"/)
    expect(agentRequests('TASK-THIRD')).toHaveLength(0)
    expect(lastToolResult(agentRequests('TASK-LEAD')[1])).toContain('deep answer')
    // general-purpose has no Agent tool; a call anyway is an unknown tool.
    expect(toolNamesOf(agentRequests('TASK-GP')[0])).not.toContain('Agent')
    expect(lastToolResult(agentRequests('TASK-GP')[1])).toMatch(/unknown tool \\"Agent\\"/)
    expect(agentRequests('TASK-NO')).toHaveLength(0)
  })

  it("checkpoints a subagent's edits with the main session's turn, so --rewind-to undoes them", async () => {
    await writeFile(join(env.box.workspace, 'code.txt'), 'before\n')
    const router = agentRouter()
      .main(call('Agent', { description: 'Edit', prompt: 'TASK-EDIT: change code.txt' }), { text: 'edited' })
      .agent(
        'TASK-EDIT',
        call('Read', { file_path: 'code.txt' }),
        call('Edit', { file_path: 'code.txt', old_string: 'before', new_string: 'after' }),
        { text: 'changed it' },
      )
    env.server.enqueue(...router.sources())
    const r = await cli(['-p', 'edit via a subagent', '--mode', 'dangerous'])
    expect(r.code, r.stderr).toBe(0)
    expect(await readFile(join(env.box.workspace, 'code.txt'), 'utf8')).toBe('after\n')
    const rewound = await cli(['--continue', '--rewind-to', '1', '--rewind-scope', 'code'])
    expect(rewound.code, rewound.stderr).toBe(0)
    expect(await readFile(join(env.box.workspace, 'code.txt'), 'utf8')).toBe('before\n')
  })

  it("masks old tool results in a subagent's own history, as in the main session's", async () => {
    const reads = Array.from({ length: 10 }, (_, n) => `file${n}.txt`)
    for (const name of reads) await writeFile(join(env.box.workspace, name), `${name}: ${'x'.repeat(600)}\n`)
    const router = agentRouter()
      .main(
        call('Agent', { description: 'Read all', prompt: 'TASK-MASK: read them', subagent_type: 'explore' }),
        {
          text: 'ok',
        },
      )
      .agent('TASK-MASK', ...reads.map((file) => call('Read', { file_path: file })), {
        text: 'read them all',
      })
    env.server.enqueue(...router.sources())
    const r = await cli(['-p', 'mask', '--max-steps', '20'])
    expect(r.code, r.stderr).toBe(0)
    const last = agentRequests('TASK-MASK').at(-1)
    const results = messagesOf(last)
      .filter((m) => m.role === 'tool')
      .map((m) => String(m.content))
    expect(results).toHaveLength(10)
    expect(results[0]).toMatch(/^\[Tool result masked: \d+ chars, first line: .*file0\.txt/)
    expect(results.at(-1)).toContain('file9.txt: xxx')
    expect(systemOf(last)).toContain('[Tool result masked:')
  })

  it("hooks: PreToolUse runs for a subagent's calls, SubagentStop keeps a finished subagent working once", async () => {
    const configDir = join(env.box.home, '.config', 'agent-tui')
    await mkdir(configDir, { recursive: true })
    const seen = join(env.box.root, 'subagent-stop.json')
    // SubagentStop: the first time, ask for more (exit 2); the event it saw is kept for the test.
    const stop = `test -f ${seen} && exit 0; cat > ${seen}; echo "also list the config files" >&2; exit 2`
    const guard = 'echo "no rm here" >&2; exit 2'
    const hook = (command: string, matcher?: string) => [
      { ...(matcher ? { matcher } : {}), hooks: [{ type: 'command', command }] },
    ]
    await writeFile(
      join(configDir, 'settings.json'),
      JSON.stringify({ hooks: { SubagentStop: hook(stop), PreToolUse: hook(guard, 'Bash') } }),
    )
    const router = agentRouter()
      .main(call('Agent', { description: 'Look', prompt: 'TASK-HOOK: look around' }), { text: 'done' })
      .agent(
        'TASK-HOOK',
        call('Bash', { command: 'rm -rf build' }),
        { text: 'first answer' },
        { text: 'config: biome.json' },
      )
    env.server.enqueue(...router.sources())
    const r = await cli(['-p', 'hooks', '--mode', 'dangerous'])
    expect(r.code, r.stderr).toBe(0)
    const child = agentRequests('TASK-HOOK')
    expect(lastToolResult(child[1])).toContain('no rm here')
    const fed = messagesOf(child[2]).at(-1)
    expect(fed).toEqual({ role: 'user', content: 'SubagentStop hook feedback:\nalso list the config files' })
    expect(lastToolResult(mainRequests()[1])).toContain('config: biome.json')
    const event = JSON.parse(await readFile(seen, 'utf8')) as Record<string, unknown>
    expect(event).toMatchObject({
      hook_event_name: 'SubagentStop',
      stop_hook_active: false,
      agent_id: 'f1',
      agent_type: 'general-purpose',
      last_assistant_message: 'first answer',
    })
  })

  it("gives MCP servers' tools to general-purpose subagents, not to read-only ones", async () => {
    const configDir = join(env.box.home, '.config', 'agent-tui')
    await mkdir(configDir, { recursive: true })
    const server = join(repoRoot, 'test/support/mcp-stdio-server.ts')
    await writeFile(
      join(configDir, 'settings.json'),
      // Every definition sent (at this window the server's tools would wait behind ToolSearch: e2e/tools-on-demand).
      JSON.stringify({
        mcpServers: { repo: { command: process.execPath, args: [server] } },
        deferTools: 'never',
      }),
    )
    const router = agentRouter()
      .main(
        {
          toolCalls: [
            agentCall({ description: 'Echo', prompt: 'TASK-GP: echo' }),
            agentCall({ description: 'Look', prompt: 'TASK-EX: look', subagent_type: 'explore' }),
          ],
        },
        { text: 'ok' },
      )
      .agent('TASK-GP', call('mcp__repo__echo', { text: 'from a subagent' }), { text: 'echoed' })
      .agent('TASK-EX', { text: 'looked' })
    env.server.enqueue(...router.sources())
    const r = await cli(['-p', 'mcp', '--mode', 'dangerous'])
    expect(r.code, r.stderr).toBe(0)
    const gp = agentRequests('TASK-GP')
    expect(toolNamesOf(gp[0])).toContain('mcp__repo__echo')
    expect(toolNamesOf(gp[0])).not.toContain('Agent')
    expect(lastToolResult(gp[1])).toContain('echo: from a subagent')
    expect(toolNamesOf(agentRequests('TASK-EX')[0])).toEqual(READ_ONLY)
  })
})

describe.runIf(osSandbox?.kind === 'bwrap')('subagents and the Bash sandbox', () => {
  it("fences a subagent's commands like the main session's", async () => {
    const router = agentRouter()
      .main(call('Agent', { description: 'Write', prompt: 'TASK-SB: write files' }), { text: 'ok' })
      .agent('TASK-SB', call('Bash', { command: 'touch inside.txt && touch ../outside.txt' }), {
        text: 'tried',
      })
    env.server.enqueue(...router.sources())
    const r = await cli(['-p', 'go', '--sandbox', '--mode', 'auto'])
    expect(r.code, r.stderr).toBe(0)
    expect(lastToolResult(agentRequests('TASK-SB')[1])).toContain(
      "cannot touch '../outside.txt': Read-only file system",
    )
    expect(existsSync(join(env.box.workspace, 'inside.txt'))).toBe(true)
    expect(existsSync(join(env.box.root, 'outside.txt'))).toBe(false)
  })
})
