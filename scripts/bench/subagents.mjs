// The cost of a foreground subagent on top of the loop (issue 24): a headless session whose model asks
// for one `explore` subagent per step, each answering at once. Two gaps per round trip, both measured at
// the scripted endpoint: from the reply carrying the Agent call to the subagent's first request (its
// store, prompt, tools and runtime are built), and from the subagent's last reply to the main session's
// next request (its answer and trace become the tool result).
import { startScriptedServer } from '../../test/support/scripted-server.ts'
import { median, timeCommand } from './measure.mjs'
import { makeSandbox } from './sandbox.mjs'

const ROUNDS = 30
const usage = { prompt: 10, completion: 1 }

export async function subagentRoundTrip(ctx) {
  const box = await makeSandbox()
  ctx.defer(() => box.cleanup())
  let round = 0
  const server = await startScriptedServer({
    fallback: (req) => {
      const system = String(req.body.messages?.[0]?.content ?? '')
      if (!system.startsWith('You are agent-tui')) return { text: 'the answer', usage }
      round++
      if (round > ROUNDS) return { text: 'done', usage }
      return {
        toolCalls: [
          {
            name: 'Agent',
            arguments: { description: `Look ${round}`, prompt: `look ${round}`, subagent_type: 'explore' },
          },
        ],
        usage,
      }
    },
  })
  ctx.defer(() => server.close())
  const args = [ctx.cli, '-p', 'delegate', '--base-url', server.baseUrl, '--model', 'test-model']
  const r = await timeCommand(process.execPath, [...args, '--max-steps', String(ROUNDS + 5)], {
    env: box.env,
    cwd: box.work,
  })
  if (r.code !== 0) throw new Error(`subagent run failed (${r.code}): ${r.stderr.trim()}`)
  const requests = server.requests
  const isMain = (q) => String(q.body.messages?.[0]?.content ?? '').startsWith('You are agent-tui')
  const spawn = []
  const back = []
  for (let i = 0; i + 2 < requests.length; i++) {
    const [call, child, next] = [requests[i], requests[i + 1], requests[i + 2]]
    if (!isMain(call) || isMain(child) || !isMain(next)) continue
    spawn.push(child.arrivedAt - call.respondedAt)
    back.push(next.arrivedAt - child.respondedAt)
  }
  if (spawn.length < ROUNDS / 2) throw new Error(`only ${spawn.length} subagent round trips were seen`)
  ctx.report(`subagent: Agent call → its first request (median of ${spawn.length})`, median(spawn), {
    note: 'info: child store, prompt, tool set and runtime',
  })
  ctx.report('subagent: its last byte → main session next request', median(back), {
    note: 'info: answer and trace become the tool result',
  })
  ctx.report('subagent: whole round trip overhead', median(spawn) + median(back), {
    note: 'info: the two above; compare with the per-step loop overhead',
  })
}
