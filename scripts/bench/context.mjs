// `npm run bench context`: the token economy (docs/performance.md#token-economy) on scripted sessions, run headless with
// observation masking on and off: a 36-step read-heavy session (1.5 kB files), a 40-turn chat (each turn
// a `--continue` run, so compaction and resume are in play) and a session whose endpoint has a smaller
// window than the model profile says (context overflow, recovered by compaction); and the read-heavy session
// against endpoints that serve an 8k and a 32k window and count every request against it (the context
// budget: docs/context.md#the-budget). Everything is measured on the requests the scripted endpoint
// received, independently of the CLI's own telemetry.
import { spawn } from 'node:child_process'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { startScriptedServer } from '../../test/support/scripted-server.ts'
import { makeSandbox } from './sandbox.mjs'
import { toolBytes } from './tool-bytes.mjs'

const SUMMARISER = 'Stop here and write a summary'

function runCli(cli, box, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], {
      cwd: box.work,
      env: box.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => {
      stdout += d
    })
    child.stderr.on('data', (d) => {
      stderr += d
    })
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}

const messagesOf = (request) => request.body.messages ?? []
const isSummariser = (request) => String(messagesOf(request).at(-1)?.content ?? '').startsWith(SUMMARISER)
const bytes = (value) => Buffer.byteLength(JSON.stringify(value))

function commonPrefix(a, b) {
  const n = Math.min(a.length, b.length)
  let k = 0
  while (k < n && a.charCodeAt(k) === b.charCodeAt(k)) k++
  return k
}

/** Figures of one run, from what the endpoint received and the CLI's final result events. */
export function measure(requests, results) {
  const turns = requests.filter((r) => !isSummariser(r))
  let appendOnly = 0
  let stability = 0
  for (let i = 1; i < turns.length; i++) {
    const prev = JSON.stringify(messagesOf(turns[i - 1]))
    const next = JSON.stringify(messagesOf(turns[i]))
    if (next.startsWith(prev.slice(0, -1))) appendOnly++
    // The logical prompt a provider caches: system prompt, tool definitions, then the messages.
    const a = JSON.stringify([turns[i - 1].body.tools, messagesOf(turns[i - 1])])
    const b = JSON.stringify([turns[i].body.tools, messagesOf(turns[i])])
    stability += commonPrefix(a, b) / b.length
  }
  const pairs = Math.max(1, turns.length - 1)
  const calls = results.flatMap((r) => r.tool_calls ?? [])
  return {
    requests: turns.length,
    summaries: requests.length - turns.length,
    messageBytes: requests.reduce((n, r) => n + bytes(messagesOf(r)), 0),
    bodyBytes: requests.reduce((n, r) => n + bytes(r.body), 0),
    tokens: requests.reduce(
      (n, r) => n + Math.ceil(JSON.stringify([r.body.tools, messagesOf(r)]).length / 4),
      0,
    ),
    lastBytes: turns.length ? bytes(messagesOf(turns.at(-1))) : 0,
    appendOnly: appendOnly / pairs,
    stability: stability / pairs,
    toolCalls: `${calls.filter((c) => c.ok).length}/${calls.length}`,
    steps: results.reduce((n, r) => n + (r.steps ?? 0), 0),
    compactions: results.reduce((n, r) => n + (r.context?.compactions ?? 0), 0),
    statuses: [...new Set(results.map((r) => r.status))].join(','),
    /** Requests that left messages out behind a marker (the budget compacts instead: always 0 now). */
    truncated: turns.filter((r) => JSON.stringify(messagesOf(r)).includes('[earlier messages truncated'))
      .length,
    /** The largest prompt by the endpoint's own count, when it counted (a windowed endpoint). */
    maxPrompt: Math.max(0, ...requests.map((r) => r.promptTokens ?? 0)),
  }
}

async function files(box, count, size) {
  const names = []
  for (let i = 1; i <= count; i++) {
    let text = ''
    for (let n = 1; text.length < size; n++)
      text += `file ${i} line ${n}: export const value${n} = compute(${n}, ${i}) // keep\n`
    const name = `f${String(i).padStart(2, '0')}.txt`
    await writeFile(join(box.work, name), text.slice(0, size))
    names.push(name)
  }
  return names
}

async function settings(box, value) {
  await mkdir(join(box.work, '.agent-tui'), { recursive: true })
  await writeFile(join(box.work, '.agent-tui', 'settings.json'), JSON.stringify(value))
}

const summary = (request) => ({
  text: `FILES MODIFIED: none\nCURRENT STATE: ${messagesOf(request).length} messages summarised; work continues.`,
})

/** 36 Reads of 1.5 kB files, then an answer. */
export async function readHeavy(ctx, box, server, masking) {
  const names = await files(box, 36, 1500)
  await settings(box, masking ? {} : { contextManagement: { masking: false } })
  let step = 0
  server.enqueue(
    ...Array.from({ length: 60 }, () => (req) => {
      if (isSummariser(req)) return summary(req)
      const name = names[step++]
      return name ? { toolCalls: [{ name: 'Read', arguments: { file_path: name } }] } : { text: 'all read' }
    }),
  )
  const r = await runCli(ctx.cli, box, [
    '-p',
    'read every file',
    '--base-url',
    server.baseUrl,
    '--model',
    'm',
    '--output-format',
    'json',
  ])
  if (r.code !== 0)
    throw new Error(`read-heavy run failed (${r.code}): ${r.stderr.trim()} ${r.stdout.slice(-2000)}`)
  return [JSON.parse(r.stdout)]
}

/** 40 turns of question and a ~2.7 kB answer, each a separate `--continue` run after the first. */
async function chat(ctx, box, server, masking) {
  await settings(box, masking ? {} : { contextManagement: { masking: false } })
  const answer = (turn) =>
    Array.from(
      { length: 28 },
      (_, i) =>
        `Point ${i + 1} for turn ${turn}: the module keeps its state in one place and passes it down.`,
    ).join('\n')
  let turn = 0
  server.enqueue(
    ...Array.from(
      { length: 200 },
      () => (req) => (isSummariser(req) ? summary(req) : { text: answer(turn) }),
    ),
  )
  const results = []
  for (turn = 1; turn <= 40; turn++) {
    const args = [
      '-p',
      `question ${turn}: how does part ${turn} work?`,
      '--base-url',
      server.baseUrl,
      '--model',
      'm',
      '--output-format',
      'json',
    ]
    const r = await runCli(ctx.cli, box, turn === 1 ? args : [...args, '--continue'])
    if (r.code !== 0) throw new Error(`chat turn ${turn} failed (${r.code}): ${r.stderr.trim()}`)
    results.push(JSON.parse(r.stdout))
  }
  return results
}

/** An endpoint serving the model with a 12k window while the profile says 32k: overflow, then recovery. */
async function overflow(ctx, box, server, masking) {
  const names = await files(box, 24, 3000)
  await settings(box, masking ? {} : { contextManagement: { masking: false } })
  let step = 0
  const window = 12_288
  server.enqueue(
    ...Array.from({ length: 120 }, () => (req) => {
      const tokens = Math.ceil(JSON.stringify([req.body.tools, messagesOf(req)]).length / 4)
      if (tokens > window) {
        const message = `request (${tokens} tokens) exceeds the available context size (${window} tokens), try increasing it`
        return {
          status: 400,
          body: {
            error: {
              code: 400,
              message,
              type: 'exceed_context_size_error',
              n_prompt_tokens: tokens,
              n_ctx: window,
            },
          },
        }
      }
      if (isSummariser(req)) return summary(req)
      const name = names[step++]
      return name ? { toolCalls: [{ name: 'Read', arguments: { file_path: name } }] } : { text: 'all read' }
    }),
  )
  const r = await runCli(ctx.cli, box, [
    '-p',
    'read every file',
    '--base-url',
    server.baseUrl,
    '--model',
    'm',
    '--output-format',
    'json',
  ])
  const result = JSON.parse(r.stdout || '{}')
  result.overflows = server.requests.filter(
    (q) => Math.ceil(JSON.stringify([q.body.tools, messagesOf(q)]).length / 4) > window,
  ).length
  return [result]
}

/** An endpoint that lists the model with `tokens` of window and refuses any request over it. */
export const windowed = (tokens) => ({
  models: [{ id: 'm', context_length: tokens }],
  contextWindow: { tokens },
})

const SESSIONS = [
  ['36-step read', readHeavy],
  ['40-turn chat', chat],
  ['overflow (12k endpoint)', overflow],
  ['36-step read, 8k window', readHeavy, windowed(8192)],
  ['36-step read, 32k window', readHeavy, windowed(32_768)],
]

const kb = (n) => `${(n / 1024).toFixed(1)} kB`
const pct = (x) => `${Math.round(x * 100)} %`

export async function context(ctx) {
  const table = []
  for (const [name, run, serverOptions] of SESSIONS) {
    const figures = {}
    for (const masking of [true, false]) {
      const box = await makeSandbox()
      ctx.defer(() => box.cleanup())
      const server = await startScriptedServer(serverOptions)
      ctx.defer(() => server.close())
      const results = await run(ctx, box, server, masking)
      figures[masking ? 'on' : 'off'] = {
        ...measure(server.requests, results),
        overflows: results[0]?.overflows ?? (serverOptions ? server.overWindow : undefined),
        window: serverOptions?.contextWindow.tokens,
      }
      await server.close()
      await box.cleanup()
    }
    table.push([name, figures])
  }
  const rows = [
    ['requests (+ summariser calls)', (f) => `${f.requests} (+${f.summaries})`],
    ['steps', (f) => String(f.steps)],
    ['tool calls ok', (f) => f.toolCalls],
    ['prompt bytes, messages (sum)', (f) => kb(f.messageBytes)],
    ['prompt bytes, with tool definitions', (f) => kb(f.bodyBytes)],
    ['estimated prompt tokens (chars/4, sum)', (f) => `${Math.round(f.tokens / 1000)}k`],
    ['last request, messages', (f) => kb(f.lastBytes)],
    ['append-only requests', (f) => pct(f.appendOnly)],
    ['prefix stability (shared start)', (f) => pct(f.stability)],
    ['compactions', (f) => String(f.compactions)],
    ['largest prompt, endpoint count / window', (f) => (f.window ? `${f.maxPrompt} / ${f.window}` : '–')],
    ['requests with messages cut out', (f) => String(f.truncated)],
    [
      'result',
      (f) => f.statuses + (f.overflows ? ` (${f.overflows} overflow${f.overflows > 1 ? 's' : ''})` : ''),
    ],
  ]
  console.log(`\n${'session / measure'.padEnd(44)}${'masking on'.padStart(24)}${'masking off'.padStart(24)}`)
  for (const [name, f] of table) {
    console.log(name)
    for (const [label, show] of rows)
      console.log(`  ${label.padEnd(42)}${show(f.on).padStart(24)}${show(f.off).padStart(24)}`)
  }
  console.log('')
  const read = table[0][1]
  ctx.report(
    'context: 36-step read, message bytes with masking / without',
    (100 * read.on.messageBytes) / read.off.messageBytes,
    {
      unit: '%',
      digits: 0,
      max: 50,
      budget: '≤ 50 %',
    },
  )
  ctx.report('context: 36-step read, append-only requests with masking', 100 * read.on.appendOnly, {
    unit: '%',
    digits: 0,
    min: 75,
    budget: '≥ 75 %',
  })
  ctx.report('context: 36-step read, append-only requests without', 100 * read.off.appendOnly, {
    unit: '%',
    digits: 0,
    min: 100,
    budget: '100 %',
  })
  for (const [name, f] of table.slice(3)) {
    // The budget: every request within the endpoint's window by its own count, and the session completes.
    ctx.report(`context: ${name}, requests over the window (masking on)`, f.on.overflows ?? 0, {
      unit: '',
      digits: 0,
      max: 0,
      budget: '0',
      note: `${f.on.requests} requests (+${f.on.summaries} summaries), ${f.on.truncated} cut, ${kb(f.on.messageBytes)} of messages, ${pct(f.on.appendOnly)} append-only, ${f.on.statuses}`,
    })
  }
  await toolBytes(ctx)
}
