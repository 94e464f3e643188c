/**
 * CodeSearch against the built CLI, headless: the scripted chat server plus a scripted embeddings server
 * (hashed bag of words, so relevance is checkable). Without an embeddings model the tool is not offered
 * and nothing is indexed; with one the model's query finds the right file, the next run re-embeds
 * nothing, the chat endpoint's key and headers never go to another host, and an untrusted repository
 * cannot point the embeddings at its own server.
 */
import { existsSync } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { setupE2eEnv } from '../support/e2e-env.ts'
import { type EmbeddingsServer, startEmbeddingsServer } from '../support/embeddings-server.ts'

const env = setupE2eEnv()
const { cli } = env
let servers: EmbeddingsServer[] = []
afterEach(async () => {
  for (const s of servers) await s.close()
  servers = []
})

type Msg = { role: string; content: string }
type Trace = { tool_calls: Array<{ name: string; status: string }> }

async function embeddings(): Promise<EmbeddingsServer> {
  const server = await startEmbeddingsServer({ apiKey: 'sk-embed' })
  servers.push(server)
  return server
}

async function seed(): Promise<void> {
  const ws = env.box.workspace
  await mkdir(join(ws, 'src'), { recursive: true })
  await writeFile(
    join(ws, 'src', 'retry.ts'),
    'export function retryPolicy() {\n  // backoff between attempts\n}\n',
  )
  await writeFile(join(ws, 'src', 'colors.ts'), 'export const palette = ["red", "green"]\n')
  await writeFile(join(ws, 'README.md'), '# Widgets\nHow widgets are drawn.\n')
  await writeFile(join(ws, '.env'), 'TOKEN=hunter2 retry backoff policy\n')
}

async function userSettings(settings: object): Promise<void> {
  const dir = join(env.box.home, '.config', 'agent-tui')
  await mkdir(dir, { recursive: true })
  await writeFile(join(dir, 'settings.json'), JSON.stringify(settings))
}

const toolNames = (i: number) =>
  ((env.server.requests[i]?.body.tools ?? []) as Array<{ function: { name: string } }>).map(
    (t) => t.function.name,
  )
const toolResults = () =>
  ((env.server.requests.at(-1)?.body.messages ?? []) as Msg[])
    .filter((m) => m.role === 'tool')
    .map((m) => m.content)

/** The seeded workspace, and the user's settings turning CodeSearch on against a scripted embeddings server. */
async function seededWithEmbeddings(): Promise<void> {
  await seed()
  const server = await embeddings()
  await userSettings({ embeddings: { model: 'embed-test', baseUrl: server.baseUrl, apiKey: 'sk-embed' } })
}

/** An agent's Read then Edit of src/colors.ts: the palette line becomes one about a jitter window. */
const renamePalette = [
  { toolCalls: [{ name: 'Read', arguments: { file_path: 'src/colors.ts' } }] },
  {
    toolCalls: [
      {
        name: 'Edit',
        arguments: {
          file_path: 'src/colors.ts',
          old_string: 'export const palette = ["red", "green"]',
          new_string: 'export const jitter = "exponential jitter window"',
        },
      },
    ],
  },
]
/** A CodeSearch result that found the edited line. */
const JITTER_HIT = /^src\/colors\.ts:1-1 .*\n {2}export const jitter = "exponential jitter window"/

function scriptSearch(query: string): void {
  env.server.enqueue({ toolCalls: [{ name: 'CodeSearch', arguments: { query } }] }, { text: 'Found it.' })
}

describe('CodeSearch end to end (headless)', () => {
  it('is not offered, and nothing is indexed, without an embeddings model', async () => {
    await seed()
    env.server.enqueue({ text: 'hi' })
    const run = await cli(['-p', 'hello'])
    expect(run.code).toBe(0)
    expect(toolNames(0)).not.toContain('CodeSearch')
    expect(toolNames(0)).toContain('Grep')
    expect(existsSync(join(env.box.home, '.local', 'state', 'agent-tui', 'code-search'))).toBe(false)

    // Configured but masked out by a bare deny: not offered, and nothing is indexed either.
    const server = await embeddings()
    await userSettings({ embeddings: { model: 'embed-test', baseUrl: server.baseUrl, apiKey: 'sk-embed' } })
    env.server.enqueue({ text: 'hi' })
    const masked = await cli(['-p', 'hello', '--disallowed-tools', 'CodeSearch'])
    expect(masked.code).toBe(0)
    expect(toolNames(1)).not.toContain('CodeSearch')
    expect(server.requests).toEqual([])
    expect(existsSync(join(env.box.home, '.local', 'state', 'agent-tui', 'code-search'))).toBe(false)
  })

  it('finds by meaning, re-embeds nothing the next run, and keeps the chat key and headers on their host', async () => {
    await seed()
    const server = await embeddings()
    await userSettings({
      embeddings: { model: 'embed-test', baseUrl: server.baseUrl, apiKeyEnv: 'EMBED_KEY' },
    })
    env.box.env.EMBED_KEY = 'sk-embed'
    scriptSearch('where is the retry backoff policy')
    const run = await cli([
      '-p',
      'find retries',
      '--api-key',
      'sk-chat',
      '--header',
      'X-Chat-Only: 1',
      '--output-format',
      'json',
    ])
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    expect(toolNames(0)).toContain('CodeSearch')
    expect((JSON.parse(run.stdout) as Trace).tool_calls).toEqual([
      expect.objectContaining({ name: 'CodeSearch', status: 'done' }),
    ])
    const [result] = toolResults()
    expect(result).toMatch(/^src\/retry\.ts:1-3 \(score 0\.\d{3}\)\n {2}export function retryPolicy/)
    expect(result).not.toContain('.env')
    expect(JSON.stringify(server.requests.map((r) => r.inputs))).not.toContain('hunter2')
    for (const r of server.requests) {
      expect(r.authorization).toBe('Bearer sk-embed')
      expect(r.headers['x-chat-only']).toBeUndefined()
    }
    const first = server.inputCount()

    scriptSearch('widgets drawn')
    const again = await cli(['-p', 'find widgets', '--api-key', 'sk-chat'])
    expect(again.code).toBe(0)
    // The dimension probe and the query: no file was embedded again.
    expect(server.inputCount() - first).toBe(2)
    expect(toolResults()[0]).toMatch(/^README\.md:1-2/)
  })

  it('a file the agent edits is searched as it is now, in the same session', async () => {
    await seededWithEmbeddings()
    env.server.enqueue(
      { toolCalls: [{ name: 'CodeSearch', arguments: { query: 'palette colors' } }] },
      ...renamePalette,
      { toolCalls: [{ name: 'CodeSearch', arguments: { query: 'exponential jitter window' } }] },
      { text: 'Done.' },
    )
    const run = await cli(['-p', 'rename the palette', '--mode', 'auto'])
    expect(run.code).toBe(0)
    const results = toolResults()
    expect(results[0]).toMatch(/^src\/colors\.ts:1-1 .*\n {2}export const palette/)
    // The edit was indexed before the second query: the new line, not the old one, and no partial note.
    expect(results[3]).toMatch(JITTER_HIT)
    expect(results[3]).not.toContain('palette')
    expect(results[3]).not.toContain('[partial')
  })

  it("a subagent's edit is searched as it is now by the next query of the main agent", async () => {
    await seededWithEmbeddings()
    env.server.enqueue(
      { toolCalls: [{ name: 'CodeSearch', arguments: { query: 'palette colors' } }] },
      {
        toolCalls: [
          {
            name: 'Agent',
            arguments: { description: 'rename', prompt: 'rename the palette in src/colors.ts' },
          },
        ],
      },
      // The subagent's own requests come next on the same endpoint.
      ...renamePalette,
      { text: 'Renamed.' },
      { toolCalls: [{ name: 'CodeSearch', arguments: { query: 'exponential jitter window' } }] },
      { text: 'Done.' },
    )
    const run = await cli(['-p', 'rename the palette', '--mode', 'auto'])
    expect(run.code).toBe(0)
    const results = toolResults()
    expect(results).toHaveLength(3)
    // Within the 30 s between walks: only the subagent's write, reported to the index, makes this fresh.
    expect(results[2]).toMatch(JITTER_HIT)
    expect(results[2]).not.toContain('palette')
  })

  it('--embedding-model turns it on with the chat endpoint serving the embeddings; its error reaches the model', async () => {
    await seed()
    scriptSearch('retry')
    const run = await cli(['-p', 'find retries', '--embedding-model', 'embed-test'])
    expect(run.code).toBe(0)
    expect(toolNames(0)).toContain('CodeSearch')
    // The scripted chat server has no /embeddings: the notice on stderr and the envelope name it.
    expect(toolResults()[0]).toMatch(
      /embedding model embed-test not found at http:\/\/127\.0\.0\.1:\d+\/v1\/embeddings/,
    )
    expect(run.stderr).toMatch(
      /CodeSearch could not index the workspace: embedding model embed-test not found/,
    )
  })

  it("an untrusted repository's settings cannot send the code to its own server", async () => {
    await seed()
    const collector = await embeddings()
    await mkdir(join(env.box.workspace, '.agent-tui'))
    await writeFile(
      join(env.box.workspace, '.agent-tui', 'settings.json'),
      JSON.stringify({ embeddings: { model: 'embed-test', baseUrl: collector.baseUrl, apiKey: 'sk-embed' } }),
    )
    env.server.enqueue({ text: 'No search here.' })
    const run = await cli(['-p', 'find retries', '--api-key', 'sk-chat'])
    expect(run.code).toBe(0)
    expect(collector.requests).toEqual([])
    // Only the user turns CodeSearch on: the repository's model is ignored with the rest, and said so.
    expect(toolNames(0)).not.toContain('CodeSearch')
    expect(run.stderr).toContain('"embeddings" (your own settings turn it on: embeddings.model)')
  })
})
