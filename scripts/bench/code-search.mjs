// docs/performance.md#codesearch: CodeSearch's index of a generated 10,000-file workspace against the scripted
// embeddings server (hashed bag of words, 384 dimensions, as small real models give), headless: the scripted
// model waits for the index job with a blocking TaskOutput (so the job's own time is measured), then runs one
// CodeSearch query. Reported: the index's time, the agent's peak RSS meanwhile, the index file's size, the
// query's latency, and a second run over the unchanged workspace (nothing embedded again).
import { spawn } from 'node:child_process'
import { mkdir, readdir, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { startEmbeddingsServer } from '../../test/support/embeddings-server.ts'
import { rssMb } from './proc.mjs'
import { makeSandbox } from './sandbox.mjs'
import { startStreamServer } from './stream-server.mjs'

const FILES = 10_000
const DIMENSIONS = 384
const SAMPLE_MS = 50
const LIMIT_MS = 110_000
const TOPICS = ['retry', 'cache', 'parser', 'render', 'socket', 'schema', 'billing', 'auth', 'queue', 'theme']
const VERBS = ['load', 'save', 'merge', 'split', 'check', 'format', 'send', 'read', 'build', 'close']

/** 100 folders of 100 small TypeScript files, each with three functions named from its topic. */
async function generate(work) {
  for (let d = 0; d < FILES / 100; d++) {
    const dir = join(work, 'src', `mod${d}`)
    await mkdir(dir, { recursive: true })
    const writes = []
    for (let f = 0; f < 100; f++) {
      const n = d * 100 + f
      const topic = TOPICS[n % TOPICS.length]
      const lines = [`// ${topic} helpers, part ${n}`, `import { ${topic}Core } from '../core.js'`, '']
      for (const verb of VERBS.slice(n % 7, (n % 7) + 3)) {
        lines.push(`/** ${verb} the ${topic} state of item ${n}. */`)
        lines.push(`export function ${verb}${topic[0].toUpperCase()}${topic.slice(1)}${n}(input: string) {`)
        for (let k = 0; k < 6; k++) lines.push(`  const step${k} = ${topic}Core.${verb}(input, ${k} + ${n})`)
        lines.push('  return step5', '}', '')
      }
      writes.push(writeFile(join(dir, `${topic}-${n}.ts`), lines.join('\n')))
    }
    await Promise.all(writes)
  }
  await writeFile(join(work, 'src', 'core.ts'), 'export const retryCore = {}\n')
}

async function dirBytes(dir) {
  let total = 0
  for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const path = join(dir, entry.name)
    total += entry.isDirectory() ? await dirBytes(path) : (await stat(path)).size
  }
  return total
}

/** One headless run: TaskOutput on i1 (blocking), then a CodeSearch; returns the trace and the peak RSS. */
async function run(ctx, box, embeddings) {
  const server = await startStreamServer({
    reply: (index) => {
      if (index === 0)
        return {
          toolCalls: [{ name: 'TaskOutput', arguments: { task_id: 'i1', block: true, timeout: 600_000 } }],
        }
      if (index === 1)
        return { toolCalls: [{ name: 'CodeSearch', arguments: { query: 'merge the billing state' } }] }
      return { text: 'done' }
    },
  })
  ctx.defer(() => server.close())
  const child = spawn(
    process.execPath,
    [
      ctx.cli,
      '-p',
      'index',
      '--base-url',
      server.baseUrl,
      '--model',
      'test-model',
      '--output-format',
      'json',
    ],
    { cwd: box.work, env: box.env, stdio: ['ignore', 'pipe', 'pipe'] },
  )
  ctx.defer(() => {
    if (child.exitCode === null) child.kill('SIGKILL')
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (d) => {
    stdout += d
  })
  child.stderr.on('data', (d) => {
    stderr += d
  })
  let peak = 0
  const sampler = setInterval(() => {
    const rss = rssMb(child.pid)
    if (Number.isFinite(rss)) peak = Math.max(peak, rss)
  }, SAMPLE_MS)
  const code = await new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      resolve(null)
    }, LIMIT_MS)
    child.on('close', (c) => {
      clearTimeout(timer)
      resolve(c)
    })
  })
  clearInterval(sampler)
  await server.close()
  if (code !== 0) throw new Error(`exit ${code}: ${stderr.slice(0, 300)}`)
  const trace = JSON.parse(stdout)
  const [wait, query] = trace.tool_calls ?? []
  const waited = String(server.requests[1]?.body.messages?.at(-1)?.content ?? '')
  if (!/completed/.test(waited)) throw new Error(`the index did not complete: ${waited.slice(0, 300)}`)
  const found = String(server.requests[2]?.body.messages?.at(-1)?.content ?? '')
  if (!/billing/.test(found.split('\n')[0] ?? ''))
    throw new Error(`the query found no billing file: ${found.slice(0, 200)}`)
  return {
    indexMs: wait.duration_ms,
    queryMs: query.duration_ms,
    peak,
    inputs: embeddings.inputCount(),
    waited,
  }
}

export async function codeSearch(ctx) {
  const box = await makeSandbox()
  ctx.defer(() => box.cleanup())
  const embeddings = await startEmbeddingsServer({ dimensions: DIMENSIONS })
  ctx.defer(() => embeddings.close())
  await generate(box.work)
  const settings = join(box.home, '.config', 'agent-tui')
  await mkdir(settings, { recursive: true })
  await writeFile(
    join(settings, 'settings.json'),
    JSON.stringify({ embeddings: { model: 'embed-test', baseUrl: embeddings.baseUrl, batchSize: 128 } }),
  )
  const first = await run(ctx, box, embeddings)
  const disk = await dirBytes(join(box.home, '.local', 'state', 'agent-tui', 'code-search'))
  ctx.report(`CodeSearch: index ${FILES} files (first run)`, first.indexMs / 1000, {
    unit: 's',
    digits: 1,
    note: `${first.inputs} inputs embedded, ${DIMENSIONS} dims; ${first.waited.match(/\d+ files, \d+ chunks/)?.[0] ?? ''}`,
  })
  ctx.report('CodeSearch: agent peak RSS while indexing', first.peak, { unit: 'MB' })
  ctx.report('CodeSearch: index size on disk', disk / 1e6, { unit: 'MB' })
  ctx.report('CodeSearch: one query (embed + KNN + format)', first.queryMs, { unit: 'ms' })
  const before = embeddings.inputCount()
  const second = await run(ctx, box, embeddings)
  ctx.report(`CodeSearch: update of the unchanged ${FILES} files (second run)`, second.indexMs / 1000, {
    unit: 's',
    digits: 2,
    note: `${second.inputs - before} inputs embedded (the dimension probe and the query)`,
  })
}
