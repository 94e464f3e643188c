// `npm run bench claudeCollection`: a Claude Code user's large collection installed (100 agents, 100
// skills, 100 commands made from the real files in test/fixtures/claude-code/, test/support/claude-collection.ts):
// the first request's tool definitions stay within 40 kB (the Skill and Agent descriptions within 8 kB
// each, docs/commands-and-skills.md#many-skills-agents-and-commands), measured on what the scripted endpoint received.
import { join } from 'node:path'
import { writeClaudeCollection } from '../../test/support/claude-collection.ts'
import { startScriptedServer } from '../../test/support/scripted-server.ts'
import { medianOf, timeCommand } from './measure.mjs'
import { makeSandbox } from './sandbox.mjs'

export async function claudeCollection(ctx) {
  const box = await makeSandbox()
  ctx.defer(() => box.cleanup())
  await writeClaudeCollection(join(box.env.XDG_CONFIG_HOME, 'agent-tui'))
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
}
