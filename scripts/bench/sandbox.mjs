// An isolated HOME / XDG dirs and workspace for one benchmark section, plus the session-log fixture
// used by `transcriptScale` (format: source/session/session-log.ts, location: source/config/app-paths.ts).
import { createHash } from 'node:crypto'
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'

export async function makeSandbox() {
  const root = await realpath(await mkdtemp(join(tmpdir(), 'agent-tui-bench-')))
  const home = join(root, 'home')
  const work = join(root, 'work')
  await mkdir(home, { recursive: true })
  await mkdir(work, { recursive: true })
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    LANG: 'C.UTF-8',
    TERM: 'xterm-256color',
  }
  return { root, home, work, env, cleanup: () => rm(root, { recursive: true, force: true }) }
}

/** Same as projectKey() in source/config/app-paths.ts. */
export function projectKey(cwd) {
  const abs = resolve(cwd)
  const key = abs.replace(/[^A-Za-z0-9._-]/g, '-')
  if (key.length <= 80) return key
  const hash = createHash('sha256').update(abs).digest('hex').slice(0, 8)
  return `${key.slice(key.length - (80 - hash.length - 1))}-${hash}`
}

/**
 * Writes a session log whose replay gives `items` transcript items (user, assistant with a Read call,
 * tool result, Markdown answer: 4 per turn, then up to 3 more), so `--continue` in `box.work` resumes it.
 */
export async function writeSessionFixture(box, items, baseUrl) {
  const id = `bench-${items}`
  const dir = join(box.env.XDG_STATE_HOME, 'agent-tui', 'sessions', projectKey(box.work))
  await mkdir(dir, { recursive: true })
  const t0 = Date.now() - items * 1000
  const lines = [
    { type: 'header', format: 1, id, cwd: box.work, createdAt: t0 },
    {
      type: 'session/started',
      session: { id, cwd: box.work, model: 'test-model', baseUrl, title: '', startedAt: t0 },
      mode: 'safe',
    },
  ]
  const turns = Math.floor(items / 4)
  for (let t = 0; t < turns; t++) {
    const text = `Please look at src/module-${t}.ts and explain what parse() does in turn ${t}.`
    const callId = `call_fixture_${t}`
    const file = `src/module-${t}.ts`
    const content = Array.from(
      { length: 12 },
      (_, i) => `${String(i + 1).padStart(6)}\texport const value${i} = parse('key${i}=${t}')`,
    ).join('\n')
    lines.push({ type: 'user/submitted', id: `user-fixture-${t}`, content: text, text })
    if (t === 0) lines.push({ type: 'session/titled', title: text })
    lines.push({
      type: 'usage/recorded',
      usage: { input: 1000 + t * 50, output: 40, cached: 0 },
      contextTokens: 1000 + t * 50,
    })
    lines.push({
      type: 'assistant/settled',
      id: `assistant-fixture-${t}-a`,
      message: {
        role: 'assistant',
        content: 'Let me read the file first.',
        tool_calls: [
          {
            id: callId,
            type: 'function',
            function: { name: 'Read', arguments: JSON.stringify({ file_path: file }) },
          },
        ],
      },
    })
    lines.push({
      type: 'tool/finished',
      callId,
      name: 'Read',
      summary: `Read ${file}`,
      status: 'done',
      content,
      preview: content.split('\n').slice(0, 3).join('\n'),
      display: { kind: 'file', path: file, lines: 12 },
      durationMs: 3,
    })
    const answer = `## parse() in turn ${t}\n\nIt splits each line at the first \`=\` and **trims** both sides:\n\n\`\`\`ts\nconst [key, value] = line.split('=')\nreturn [key.trim(), value.trim()]\n\`\`\`\n\n- keys are unique\n- values stay strings`
    lines.push({
      type: 'assistant/settled',
      id: `assistant-fixture-${t}-b`,
      message: { role: 'assistant', content: answer },
    })
    lines.push({ type: 'turn/ended', result: { kind: 'completed', text: answer, steps: 2 } })
  }
  // The remaining 1–3 items: user, answer, user.
  for (let r = 0; r < items % 4; r++) {
    const t = `tail-${r}`
    if (r % 2 === 0)
      lines.push({ type: 'user/submitted', id: `user-fixture-${t}`, content: 'And now?', text: 'And now?' })
    else
      lines.push({
        type: 'assistant/settled',
        id: `assistant-fixture-${t}`,
        message: { role: 'assistant', content: 'Done.' },
      })
  }
  const text = lines
    .map((line, i) => JSON.stringify(line.type === 'header' ? line : { ...line, ts: t0 + i * 10 }))
    .join('\n')
  await writeFile(join(dir, `${id}.jsonl`), `${text}\n`)
  return { id, items }
}
