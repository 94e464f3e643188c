// `npm run bench claudeCollection`: a Claude Code user's large collection installed (100 agents, 100
// skills, 100 commands made from the real files in test/fixtures/claude-code/, test/support/claude-collection.ts):
// the first request's tool definitions stay within 40 kB (the Skill and Agent descriptions within 8 kB
// each, docs/commands-and-skills.md#many-skills-agents-and-commands), measured on what the scripted endpoint received;
// and the full-screen session with it: the first frame, the command list (the files are read by then) and idle RSS.
import { join } from 'node:path'
import { writeClaudeCollection } from '../../test/support/claude-collection.ts'
import { startScriptedServer } from '../../test/support/scripted-server.ts'
import { setTimeout as sleep } from 'node:timers/promises'
import { median, medianOf, timeCommand } from './measure.mjs'
import { rssMb } from './proc.mjs'
import { startPty } from './pty.mjs'
import { makeSandbox } from './sandbox.mjs'
import { startStreamServer } from './stream-server.mjs'

export async function claudeCollection(ctx) {
  const box = await makeSandbox()
  ctx.defer(() => box.cleanup())
  const written = await writeClaudeCollection(join(box.env.XDG_CONFIG_HOME, 'agent-tui'))
  const server = await startScriptedServer({ fallback: { text: 'ok', usage: { prompt: 10, completion: 1 } } })
  ctx.defer(() => server.close())
  const args = [ctx.cli, '-p', 'hello', '--base-url', server.baseUrl, '--model', 'test-model']
  const ms = await medianOf(5, async () => {
    const r = await timeCommand(process.execPath, args, { env: box.env, cwd: box.work })
    if (r.code !== 0) throw new Error(`one-step run with the collection failed: ${r.stderr}`)
    return r.ms
  })
  const first = server.requests[0]
  const tools = first?.body.tools ?? []
  const bytes = (value) => Buffer.byteLength(typeof value === 'string' ? value : JSON.stringify(value))
  const described = (name) => tools.find((t) => t.function?.name === name)?.function.description ?? ''
  ctx.report('300-item collection: first-request tool definitions', bytes(tools) / 1000, {
    unit: 'kB',
    max: 40,
    budget: '≤ 40 kB',
  })
  ctx.report('  … the Skill tool description', bytes(described('Skill')) / 1000, {
    unit: 'kB',
    max: 8,
    budget: '≤ 8 kB',
  })
  ctx.report('  … the Agent tool description', bytes(described('Agent')) / 1000, {
    unit: 'kB',
    max: 8,
    budget: '≤ 8 kB',
  })
  ctx.report('  … agent-tui -p with it (one step, scripted server)', ms, {
    note: 'info: reads all 300 files',
  })
  await claudeCollectionTui(ctx, box, written.skills.at(-1))
}

const statusBarShown = (_screen, lines) => lines[0].includes('SAFE') && lines[0].includes('test-model')

export async function claudeCollectionTui(ctx, box, skill) {
  const server = await startStreamServer({ reply: () => ({ text: 'ok' }) })
  ctx.defer(() => server.close())
  const frames = []
  const lists = []
  let rss = null
  for (let i = 0; i <= 5; i++) {
    const tui = startPty({
      args: [ctx.cli, '--base-url', server.baseUrl, '--model', 'test-model'],
      cwd: box.work,
      env: box.env,
    })
    ctx.defer(() => tui.kill())
    const at = await tui.waitFor(statusBarShown, 15_000, 'the first frame (status bar)')
    tui.write(`/${skill}`)
    // The collection's own entries are in the list once the command files are read.
    const listed = await tui.waitFor(
      (screen) => screen.includes('(skill, user)') && screen.includes(skill),
      15_000,
      'a skill in the command list',
    )
    if (i > 0) {
      frames.push(at - tui.spawnedAt)
      lists.push(listed - tui.spawnedAt)
    }
    if (i === 5) {
      await tui.quiet(1_000, 10_000)
      // As the idle section measures it: after 10 s of quiet.
      await sleep(10_000)
      rss = rssMb(tui.pid)
    }
    await tui.kill()
  }
  ctx.report('300-item collection: start → first frame', median(frames), { max: 150, budget: '≤ 150 ms' })
  ctx.report('  … start → its skills in the command list', median(lists), {
    note: 'info: all 300 files read',
  })
  ctx.report('  … idle RSS (after 10 s idle)', rss, { unit: 'MB', max: 90, budget: '≤ 90 MB' })
}
